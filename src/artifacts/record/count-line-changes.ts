import { diffLines } from 'diff';

/** Lines added and removed between two versions of a text. */
export interface LineChanges {
  readonly linesAdded: number;
  readonly linesRemoved: number;
}

/** Counts the lines added and removed from `previous` to `next`; a first version (`previous` null) adds every line. */
export function countLineChanges(previous: string | null, next: string): LineChanges {
  let linesAdded = 0;
  let linesRemoved = 0;
  // jsdiff keeps line endings in its tokens, so a CRLF switch or a new final newline counts as a changed line.
  for (const change of diffLines(previous ?? '', next)) {
    if (change.added) linesAdded += change.count;
    else if (change.removed) linesRemoved += change.count;
  }
  return { linesAdded, linesRemoved };
}
