import { constants } from 'node:fs';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../workspace/index.js';
import { artifactRecordSchema } from './artifact-record.js';
import type { ArtifactRecord } from './artifact-record.js';

const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Why one line of artifacts.jsonl was not read as a record. */
export type RecordLineProblemCode = 'invalid_json' | 'invalid_record' | 'truncated_line';

/** One line of artifacts.jsonl that is not a valid record, with its 1-based line number. */
export interface RecordLineProblem {
  readonly line: number;
  readonly code: RecordLineProblemCode;
  readonly message: string;
}

/** The valid records of a run's artifacts.jsonl in file order, and every line that is not one. */
export interface ArtifactRecordsRead {
  readonly records: readonly ArtifactRecord[];
  readonly problems: readonly RecordLineProblem[];
}

/** The path of a run's artifacts.jsonl relative to the project root. */
export function artifactRecordsPath(runId: string): string {
  checkRunId(runId);
  return `.agent/runs/${runId}/artifacts.jsonl`;
}

/** Validates `records` and appends them to the run's artifacts.jsonl, one line each, in a single O_APPEND write. */
export async function appendArtifactRecords(
  projectDir: string,
  runId: string,
  records: readonly ArtifactRecord[],
): Promise<void> {
  const relative = artifactRecordsPath(runId);
  if (records.length === 0) return;
  const lines = records.map((record, index) => {
    const parsed = artifactRecordSchema.safeParse(record);
    if (!parsed.success) {
      throw new Error(
        `artifact record ${index} is invalid: ${parsed.error.issues.map(describeIssue).join('; ')}`,
      );
    }
    if (parsed.data.runId !== runId) {
      throw new Error(`artifact record ${index} belongs to run ${parsed.data.runId}, not ${runId}`);
    }
    return `${JSON.stringify(parsed.data)}\n`;
  });
  const bytes = Buffer.from(lines.join(''), 'utf8');
  const target = join(projectDir, relative);
  await mkdir(join(projectDir, '.agent', 'runs', runId), { recursive: true });
  const handle = await open(
    target,
    constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
    0o644,
  );
  try {
    // One write(2) on O_APPEND: concurrent appenders never interleave inside a line on a local filesystem.
    const { bytesWritten } = await handle.write(bytes, 0, bytes.length);
    if (bytesWritten !== bytes.length) {
      throw new Error(
        `short write to ${relative}: ${bytesWritten} of ${bytes.length} bytes; the last line is truncated, check free space`,
      );
    }
  } finally {
    await handle.close();
  }
}

/** Reads and validates every line of a run's artifacts.jsonl; a missing file reads as no records. */
export async function readArtifactRecords(projectDir: string, runId: string): Promise<ArtifactRecordsRead> {
  const relative = artifactRecordsPath(runId);
  let text: string;
  try {
    text = await readFile(join(projectDir, relative), 'utf8');
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return { records: [], problems: [] };
    throw error;
  }
  const records: ArtifactRecord[] = [];
  const problems: RecordLineProblem[] = [];
  const lines = text.split('\n');
  // Every append ends its lines with '\n', so text after the last newline is an interrupted write.
  const unterminated = lines.pop() ?? '';
  lines.forEach((content, index) => {
    const line = index + 1;
    let value: unknown;
    try {
      value = JSON.parse(content);
    } catch {
      problems.push({ line, code: 'invalid_json', message: `line ${line} of ${relative} is not JSON` });
      return;
    }
    const parsed = artifactRecordSchema.safeParse(value);
    if (parsed.success) records.push(parsed.data);
    else {
      problems.push({
        line,
        code: 'invalid_record',
        message: `line ${line} of ${relative} is not an artifact record: ${parsed.error.issues.map(describeIssue).join('; ')}`,
      });
    }
  });
  if (unterminated !== '') {
    const line = lines.length + 1;
    problems.push({
      line,
      code: 'truncated_line',
      message: `line ${line} of ${relative} has no final newline (an interrupted write); it was not read`,
    });
  }
  return { records, problems };
}

function checkRunId(runId: string): void {
  if (!RUN_ID_PATTERN.test(runId)) {
    throw new Error(`run id ${JSON.stringify(runId)} must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`);
  }
}

function describeIssue(issue: { readonly path: readonly PropertyKey[]; readonly message: string }): string {
  const where = issue.path.map(String).join('.');
  return where === '' ? issue.message : `${where}: ${issue.message}`;
}
