import { displayWidth, padToWidth } from './display-width.js';

/** Renders rows as a plain-text table aligned by display width (CJK paths align); numeric cells are right-aligned. */
export function renderTable(
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[],
): string {
  const cells = [header, ...rows].map((row) => row.map(String));
  const widths = header.map((_, column) => Math.max(...cells.map((row) => displayWidth(row[column] ?? ''))));
  const numeric = header.map(
    (_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'),
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
