import { displayWidth, padToWidth } from './display-width.js';

/**
 * Renders rows as a plain-text table aligned by display width (CJK paths align); numeric columns (numbers, and
 * `-` for a missing one) are right-aligned.
 */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => displayWidth(row[column] ?? ''))));
  // A column of numbers, where `-` may stand for a missing one, is right-aligned, its dashes with it.
  const numeric = header.map(
    (_, column) =>
      rows.some((row) => typeof row[column] === 'number') &&
      rows.every((row) => typeof row[column] === 'number' || row[column] === '-'),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) => {
          const width = widths[column] ?? 0;
          return padToWidth(cell, width, numeric[column] === true ? 'start' : 'end');
        })
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
