import { redactJson } from '../../project/index.js';
import { StoreError, usingProject } from '../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../store/index.js';
import { artifactRecordSchema } from '../artifact-record.js';
import type { ArtifactRecord } from '../artifact-record.js';

/** Why one line of a records file (a run's artifacts.jsonl or an index file) was not read as a record. */
export type RecordLineProblemCode = 'invalid_json' | 'invalid_record' | 'truncated_line';

/** One line of a records file that is not a valid record, with its 1-based line number. */
export interface RecordLineProblem {
  /** The project-relative file the line is in. */
  readonly file: string;
  readonly line: number;
  readonly code: RecordLineProblemCode;
  readonly message: string;
}

/** The valid records of a records file in file order, and every line that is not one. */
export interface ArtifactRecordsRead {
  readonly records: readonly ArtifactRecord[];
  readonly problems: readonly RecordLineProblem[];
}

/** Validates `records` and renders them as JSON lines; an invalid record is a bug in our own code and throws. */
export function renderRecordLines(records: readonly ArtifactRecord[]): string {
  return records
    .map((record, index) => {
      const known = renderedLines.get(record);
      if (known !== undefined) return known;
      const parsed = artifactRecordSchema.safeParse(record);
      if (!parsed.success) {
        throw new Error(
          `artifact record ${index} is invalid: ${parsed.error.issues.map(describeIssue).join('; ')}`,
        );
      }
      const line = `${JSON.stringify(redactJson(parsed.data))}\n`;
      renderedLines.set(record, line);
      return line;
    })
    .join('');
}

/**
 * Lines already rendered, by record object: a recorded batch renders each record for its run file, its path index
 * and the history journal, and records are never changed after they are made (their fields are readonly).
 */
const renderedLines = new WeakMap<ArtifactRecord, string>();

/**
 * Appends `text` (whole lines) to the records or index file `key` of `store` in one piece (the files store: one
 * write(2) on an O_APPEND descriptor, no symlink followed on the way); `durability` `fsync` (default) makes it
 * durable before returning.
 */
export async function appendLines(
  store: ProjectStore,
  key: string,
  text: string,
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  if (text === '') return;
  await store.append(key, text, { durability });
}

/** Reads and validates every line of a project's records file; a missing file reads as no records. */
export async function readRecordLines(project: ProjectRef, key: string): Promise<ArtifactRecordsRead> {
  return parseRecordLines(await readRecordsText(project, key), key);
}

/**
 * The text of a project's records or index file, '' when it does not exist (a regular file only: a folder, FIFO,
 * socket or device in its place rejects with EISDIR or EINVAL naming it, as readers of records always have).
 */
export async function readRecordsText(project: ProjectRef, key: string): Promise<string> {
  try {
    return await usingProject(project, async ({ store }) => (await store.readText(key)) ?? '');
  } catch (error) {
    if (error instanceof StoreError && error.code === 'not_a_file' && error.cause instanceof Error)
      throw error.cause;
    throw error;
  }
}

/** Parses the text of a records file: every complete line validated, text after the last newline reported. */
export function parseRecordLines(text: string, relative: string): ArtifactRecordsRead {
  const records: ArtifactRecord[] = [];
  const problems: RecordLineProblem[] = [];
  const lines = text.split('\n');
  // Every append ends its lines with '\n', so text after the last newline is an interrupted write.
  const unterminated = lines.pop() ?? '';
  lines.forEach((content, index) => {
    const line = index + 1;
    // Two appenders that both found an interrupted last line each start on a fresh line: an empty line, no record.
    if (content === '') return;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      problems.push({
        file: relative,
        line,
        code: 'invalid_json',
        message: `line ${line} of ${relative} is not JSON`,
      });
      return;
    }
    const parsed = artifactRecordSchema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else {
      problems.push({
        file: relative,
        line,
        code: 'invalid_record',
        message: `line ${line} of ${relative} is not an artifact record: ${parsed.error.issues.map(describeIssue).join('; ')}`,
      });
    }
  });
  if (unterminated !== '') {
    const line = lines.length + 1;
    problems.push({
      file: relative,
      line,
      code: 'truncated_line',
      message: `line ${line} of ${relative} has no final newline (an interrupted write); it was not read`,
    });
  }
  return { records, problems };
}

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string }): string {
  const where = issue.path.map(String).join('.');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}
