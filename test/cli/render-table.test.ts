import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/cli/render/display-width.js';
import { renderTable } from '../../src/cli/render/render-table.js';

describe('renderTable', () => {
  it('aligns columns by display width, so CJK paths line up', () => {
    const table = renderTable(
      ['path', 'bytes'],
      [
        ['文档/计划.md', 10],
        ['docs/plan.md', 200],
      ],
    );
    const lines = table.split('\n');
    expect(lines.map(displayWidth)).toEqual([19, 19, 19]);
    expect(lines[1]).toBe('文档/计划.md     10');
  });

  it('right-aligns numeric columns and trims trailing spaces', () => {
    expect(
      renderTable(
        ['a', 'n'],
        [
          ['x', 1],
          ['yy', 22],
        ],
      ),
    ).toBe('a    n\nx    1\nyy  22');
  });

  it('right-aligns a numeric column that holds a - for a missing value, the - with the numbers', () => {
    expect(
      renderTable(
        ['run', 'blocks', 'note'],
        [
          ['a', 120, '-'],
          ['b', '-', 'x'],
          ['c', 7, 'y'],
        ],
      ),
    ).toBe('run  blocks  note\na       120  -\nb         -  x\nc         7  y');
  });

  it('keeps a column of - alone left-aligned, as text', () => {
    expect(renderTable(['a', 'b'], [['x', '-']])).toBe('a  b\nx  -');
  });
});
