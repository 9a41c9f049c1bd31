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
 * Lines are never held as strings: the common prefix and suffix are found on the texts themselves, and the lines
 * between become integer ids (one per distinct line), so a 16 MiB document of short lines costs a few bytes a line.
 */
export function countLineChanges(
  previous: string | null,
  next: string,
  options: LineCountOptions = {},
): LineChanges {
  const old = previous ?? '';
  // A common prefix and suffix are in some longest common subsequence, so trimming them keeps the counts exact.
  const start = commonPrefixLines(old, next);
  const tail = commonSuffixLines(old, next, start);
  const ids = new Map<string, number>();
  const oldMiddle = lineIds(old, start, old.length - tail, ids);
  const newMiddle = lineIds(next, start, next.length - tail, ids);
  // One side empty: every remaining line is added or removed, which is what a minimal diff finds.
  if (oldMiddle.length === 0 || newMiddle.length === 0) {
    return { linesAdded: newMiddle.length, linesRemoved: oldMiddle.length, method: 'diff' };
  }
  const distance = editDistance(
    oldMiddle,
    newMiddle,
    Math.min(options.maxEditLength ?? MAX_DIFF_EDIT_LENGTH, oldMiddle.length + newMiddle.length),
  );
  if (distance === undefined) return countByMultiset(oldMiddle, newMiddle, ids.size);
  // Every minimal diff keeps a longest common subsequence, so its counts follow from the distance alone.
  const common = (oldMiddle.length + newMiddle.length - distance) / 2;
  return { linesAdded: newMiddle.length - common, linesRemoved: oldMiddle.length - common, method: 'diff' };
}

/** Where the lines the two texts share at their start end: just after the last `\n` before they first differ. */
function commonPrefixLines(a: string, b: string): number {
  const shorter = Math.min(a.length, b.length);
  let same = 0;
  while (same < shorter && a.charCodeAt(same) === b.charCodeAt(same)) same++;
  if (same === a.length && same === b.length) return same;
  return same === 0 ? 0 : a.lastIndexOf('\n', same - 1) + 1;
}

/**
 * How many characters of whole lines the two texts share at their end, not reaching back past `start`: the
 * longest equal tail that begins, in both texts, at `start` or just after a `\n`.
 */
function commonSuffixLines(a: string, b: string, start: number): number {
  const room = Math.min(a.length, b.length) - start;
  let same = 0;
  while (same < room && a.charCodeAt(a.length - 1 - same) === b.charCodeAt(b.length - 1 - same)) same++;
  const startsLine = (text: string, at: number): boolean => at === start || text.charCodeAt(at - 1) === 0x0a;
  if (startsLine(a, a.length - same) && startsLine(b, b.length - same)) return same;
  // Shorter tails begin inside the equal part, where a line start in one text is one in the other.
  const newline = a.indexOf('\n', a.length - same);
  return newline === -1 ? 0 : a.length - newline - 1;
}

/**
 * The lines of `text[from, to)` as `diffLines` tokenizes them (each keeps its `\n` or `\r\n`, so a CRLF switch or
 * a new final newline counts as a changed line), each as the id of its text in `ids` (added when new).
 */
function lineIds(text: string, from: number, to: number, ids: Map<string, number>): Int32Array {
  let count = 0;
  for (let at = from; at < to; count++) {
    const newline = text.indexOf('\n', at);
    at = newline === -1 || newline >= to ? to : newline + 1;
  }
  const lines = new Int32Array(count);
  let index = 0;
  for (let at = from; at < to; index++) {
    const newline = text.indexOf('\n', at);
    const end = newline === -1 || newline >= to ? to : newline + 1;
    const line = text.slice(at, end);
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    lines[index] = id;
    at = end;
  }
  return lines;
}

/**
 * The length of a minimal line edit script (lines removed plus added) from `a` to `b`, or undefined past `bound`:
 * Myers' greedy O((N + M) * D) search, as jsdiff's `diffLines` runs it, but keeping only the furthest point of each
 * diagonal (one Int32Array) and comparing lines as interned integers, since a count needs no edit script (D82).
 */
function editDistance(x0: Int32Array, y0: Int32Array, bound: number): number | undefined {
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
 * Lines of the old version that no line of the new one matches are removed, and vice versa, in O(N + M):
 * equal to the diff's counts when the common lines keep their order, fewer when lines moved.
 */
function countByMultiset(oldLines: Int32Array, newLines: Int32Array, distinct: number): LineChanges {
  const unmatchedOld = new Int32Array(distinct);
  for (const line of oldLines) unmatchedOld[line] = (unmatchedOld[line] ?? 0) + 1;
  let linesAdded = 0;
  for (const line of newLines) {
    const left = unmatchedOld[line] ?? 0;
    if (left > 0) unmatchedOld[line] = left - 1;
    else linesAdded++;
  }
  let linesRemoved = 0;
  for (const left of unmatchedOld) linesRemoved += left;
  return { linesAdded, linesRemoved, method: 'multiset' };
}
