import { diffLines } from 'diff';

/**
 * How line changes were counted: `diff`, a minimal line diff (exact); `multiset`, the linear fallback for a
 * large edit, exact unless lines moved (docs/artifacts.md, "Line counts").
 */
export type LineCountMethod = 'diff' | 'multiset';

/** Lines added and removed between two versions of a text, and how they were counted. */
export interface LineChanges {
  readonly linesAdded: number;
  readonly linesRemoved: number;
  readonly method: LineCountMethod;
}

/** Options of {@link countLineChanges}. */
export interface LineCountOptions {
  /** The largest edit (lines added plus removed) the diff may search for before the fallback counts instead. */
  readonly maxEditLength?: number;
}

/**
 * The default bound on the diff's edit length: the diff costs O((N + M) * bound), so a bounded diff keeps
 * counting linear in the text while every edit up to 500 changed lines is still counted by a minimal diff.
 */
export const MAX_DIFF_EDIT_LENGTH = 500;

/**
 * Counts the lines added and removed from `previous` to `next` (a first version, `previous` null, adds every
 * line): by a minimal line diff when the edit is within `maxEditLength`, otherwise by the linear multiset count.
 */
export function countLineChanges(
  previous: string | null,
  next: string,
  options: LineCountOptions = {},
): LineChanges {
  const oldLines = splitLines(previous ?? '');
  const newLines = splitLines(next);
  // A common prefix and suffix are in some longest common subsequence, so trimming them keeps the counts exact.
  let start = 0;
  while (start < oldLines.length && start < newLines.length && oldLines[start] === newLines[start]) start++;
  let oldEnd = oldLines.length;
  let newEnd = newLines.length;
  while (oldEnd > start && newEnd > start && oldLines[oldEnd - 1] === newLines[newEnd - 1]) {
    oldEnd--;
    newEnd--;
  }
  const oldMiddle = oldLines.slice(start, oldEnd);
  const newMiddle = newLines.slice(start, newEnd);
  // One side empty: every remaining line is added or removed, which is what a minimal diff finds.
  if (oldMiddle.length === 0 || newMiddle.length === 0) {
    return { linesAdded: newMiddle.length, linesRemoved: oldMiddle.length, method: 'diff' };
  }
  const changes = diffLines(oldMiddle.join(''), newMiddle.join(''), {
    maxEditLength: options.maxEditLength ?? MAX_DIFF_EDIT_LENGTH,
  });
  if (changes === undefined) return countByMultiset(oldMiddle, newMiddle);
  let linesAdded = 0;
  let linesRemoved = 0;
  for (const change of changes) {
    if (change.added) linesAdded += change.count;
    else if (change.removed) linesRemoved += change.count;
  }
  return { linesAdded, linesRemoved, method: 'diff' };
}

/**
 * Splits a text into lines as jsdiff's `diffLines` tokenizes it: each line keeps its `\n` or `\r\n`, so a CRLF
 * switch or a new final newline counts as a changed line.
 */
function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  while (from < text.length) {
    const newline = text.indexOf('\n', from);
    const to = newline === -1 ? text.length : newline + 1;
    lines.push(text.slice(from, to));
    from = to;
  }
  return lines;
}

/**
 * Lines of the old version that no line of the new one matches are removed, and vice versa, in O(N + M):
 * equal to the diff's counts when the common lines keep their order, fewer when lines moved.
 */
function countByMultiset(oldLines: readonly string[], newLines: readonly string[]): LineChanges {
  const unmatchedOld = new Map<string, number>();
  for (const line of oldLines) unmatchedOld.set(line, (unmatchedOld.get(line) ?? 0) + 1);
  let linesAdded = 0;
  for (const line of newLines) {
    const left = unmatchedOld.get(line) ?? 0;
    if (left > 0) unmatchedOld.set(line, left - 1);
    else linesAdded++;
  }
  let linesRemoved = 0;
  for (const left of unmatchedOld.values()) linesRemoved += left;
  return { linesAdded, linesRemoved, method: 'multiset' };
}
