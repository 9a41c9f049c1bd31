/**
 * The candidate a misspelt `word` most likely meant: the same letters ignoring case and `-`/`_`, or one or
 * two edits away (one for words of up to 4 letters); undefined when nothing is that close.
 */
export function closestMatch(word: string, candidates: Iterable<string>): string | undefined {
  const normalize = (text: string): string => text.toLowerCase().replace(/[-_\s]/g, '');
  const wanted = normalize(word);
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, normalize(candidate));
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  const tolerance = wanted.length <= 4 ? 1 : 2;
  return best !== undefined && best.distance <= tolerance ? best.candidate : undefined;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`enabeld` is 1 from `enabled`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const cell = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, cell(i - 2, j - 2) + 1);
      }
      const row = rows[i];
      if (row !== undefined) row[j] = distance;
    }
  }
  return cell(a.length, b.length);
}
