import type { VersionDiffer, VersionToDiff } from '../../artifacts/index.js';
import type { ReportBudget } from './report-budget.js';
import type { ReportDiff } from './run-report.js';

/**
 * A version's diff as the report carries it: jsdiff's unified diff cut at `maxDiffLines`, or `omitted` with the
 * replay command that shows it once the report's diffs have passed `maxDiffBytesTotal` (the diff is then not made).
 */
export async function reportDiff(
  differ: VersionDiffer,
  budget: ReportBudget,
  version: VersionToDiff,
  runId: string,
): Promise<ReportDiff> {
  if (!budget.diffsLeft()) {
    budget.omitDiff();
    const command = replayPathCommand(runId, version.path);
    return {
      kind: 'omitted',
      message: `left out for size (over ${String(budget.caps.maxDiffBytesTotal)} bytes of diffs)`,
      command,
    };
  }
  const diff = await differ.diffOf(version);
  if (diff.kind !== 'text') return diff;
  const { text, truncated } = firstLines(diff.patch, budget.caps.maxDiffLines);
  budget.spendDiff(Buffer.byteLength(text, 'utf8'), truncated);
  return { kind: 'text', patch: text, truncated };
}

/** The command that shows one path's versions of a run with their diffs. */
export function replayPathCommand(runId: string, path: string): string {
  return `artifact-ingest replay ${shellWord(runId)} --backward --path ${shellWord(path)}`;
}

/** The first `max` lines of `text` (each with its newline), and whether any were cut. */
function firstLines(text: string, max: number): { text: string; truncated: boolean } {
  let end = 0;
  for (let line = 0; line < max; line += 1) {
    const next = text.indexOf('\n', end);
    if (next === -1) return { text, truncated: false };
    end = next + 1;
  }
  return end >= text.length ? { text, truncated: false } : { text: text.slice(0, end), truncated: true };
}

/** A word a POSIX shell reads back as `word`: bare when it is plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[\w./@%+=:,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
