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
  const distance = editDistance(
    oldMiddle,
    newMiddle,
    Math.min(options.maxEditLength ?? MAX_DIFF_EDIT_LENGTH, oldMiddle.length + newMiddle.length),
  );
  if (distance === undefined) return countByMultiset(oldMiddle, newMiddle);
  // Every minimal diff keeps a longest common subsequence, so its counts follow from the distance alone.
  const common = (oldMiddle.length + newMiddle.length - distance) / 2;
  return { linesAdded: newMiddle.length - common, linesRemoved: oldMiddle.length - common, method: 'diff' };
}

/**
 * The length of a minimal line edit script (lines removed plus added) from `a` to `b`, or undefined past `bound`:
 * Myers' greedy O((N + M) * D) search, as jsdiff's `diffLines` runs it, but keeping only the furthest point of each
 * diagonal (one Int32Array) and comparing lines as interned integers, since a count needs no edit script (D82).
 */
function editDistance(a: readonly string[], b: readonly string[], bound: number): number | undefined {
  const ids = new Map<string, number>();
  const intern = (lines: readonly string[]): Int32Array =>
    Int32Array.from(lines, (line) => {
      let id = ids.get(line);
      if (id === undefined) {
        id = ids.size;
        ids.set(line, id);
      }
      return id;
    });
  const x0 = intern(a);
  const y0 = intern(b);
  const n = x0.length;
  const m = y0.length;
  const offset = bound + 1;
  // furthest[offset + k]: the furthest x reached on diagonal k = x - y.
  const furthest = new Int32Array(2 * bound + 3);
  for (let d = 0; d <= bound; d++) {
    for (let k = -d; k <= d; k += 2) {
      const down = furthest[offset + k + 1] ?? 0;
      const right = furthest[offset + k - 1] ?? 0;
      let x = k === -d || (k !== d && right < down) ? down : right + 1;
      let y = x - k;
      while (x < n && y < m && x0[x] === y0[y]) {
        x++;
        y++;
      }
      furthest[offset + k] = x;
      if (x >= n && y >= m) return d;
    }
  }
  return undefined;
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
