import { describe, expect, it } from 'vitest';
import { LineCursor } from '../../../src/fence/block-scanner/line-cursor.js';

/** The lines of `text` as [start, end, nextLineStart] triples, read with startLine. */
function lines(text: string): [number, number, number][] {
  const cursor = new LineCursor(text);
  const found: [number, number, number][] = [];
  for (let start = 0; start < text.length; start = cursor.nextLineStart) {
    cursor.startLine(start);
    found.push([start, cursor.lineEnd, cursor.nextLineStart]);
  }
  return found;
}

describe('LineCursor.startLine', () => {
  it.each<[string, string, [number, number, number][]]>([
    [
      'LF',
      'a\nbc\n',
      [
        [0, 1, 2],
        [2, 4, 5],
      ],
    ],
    [
      'CRLF',
      'a\r\nbc\r\n',
      [
        [0, 1, 3],
        [3, 5, 7],
      ],
    ],
    [
      'CR',
      'a\rbc\r',
      [
        [0, 1, 2],
        [2, 4, 5],
      ],
    ],
    [
      'mixed, the last line without an ending',
      'a\r\n\rb\nc',
      [
        [0, 1, 3],
        [3, 3, 4],
        [4, 5, 6],
        [6, 7, 7],
      ],
    ],
    [
      'CR then LF as two endings when apart',
      'a\rb\nc',
      [
        [0, 1, 2],
        [2, 3, 4],
        [4, 5, 5],
      ],
    ],
  ])('splits %s endings', (_name, text, expected) => {
    expect(lines(text)).toEqual(expected);
  });
});

describe('LineCursor columns', () => {
  it.each<[string, string, number, number, boolean]>([
    // [name, line, nextNonspace, its column, blank]
    ['spaces', '   x', 3, 3, false],
    ['a tab to column 4', '\tx', 1, 4, false],
    ['two spaces and a tab to column 4', '  \tx', 3, 4, false],
    ['a tab after 4 spaces to column 8', '    \tx', 5, 8, false],
    ['blank', ' \t ', 3, 5, true],
  ])('finds the next non-space past %s', (_name, text, nextNonspace, column, blank) => {
    const cursor = new LineCursor(text);
    cursor.startLine(0);
    cursor.findNextNonspace();
    expect([cursor.nextNonspace, cursor.nextNonspaceColumn, cursor.indent, cursor.blank]).toEqual([
      nextNonspace,
      column,
      column,
      blank,
    ]);
  });

  it('consumes a tab only partly when advancing by columns (CommonMark 2.2)', () => {
    const cursor = new LineCursor(' \tx');
    cursor.startLine(0);
    cursor.advanceOffset(2, true);
    expect([cursor.offset, cursor.column, cursor.partialTab]).toEqual([1, 2, true]);
    cursor.advanceOffset(2, true);
    expect([cursor.offset, cursor.column, cursor.partialTab]).toEqual([2, 4, false]);
  });

  it('consumes a whole tab when advancing by characters', () => {
    const cursor = new LineCursor(' \tx');
    cursor.startLine(0);
    cursor.advanceOffset(2, false);
    expect([cursor.offset, cursor.column, cursor.partialTab]).toEqual([2, 4, false]);
  });

  it('measures indentation from the cursor, not from the line start', () => {
    const cursor = new LineCursor('>  \tx');
    cursor.startLine(0);
    cursor.advanceOffset(1, false);
    cursor.findNextNonspace();
    expect([cursor.nextNonspace, cursor.nextNonspaceColumn, cursor.indent]).toEqual([4, 4, 3]);
  });

  it.each<[string, number, boolean]>([
    // [how far the cursor moves into the run, by columns, before searching again; partial tab expected]
    ['not at all', 0, false],
    ['two spaces', 2, false],
    ['into the tab', 3, true],
    ['past the tab', 4, false],
  ])('finds the same next non-space again after moving %s into the run searched', (_name, move, partial) => {
    const cursor = new LineCursor('  \t x');
    cursor.startLine(0);
    cursor.findNextNonspace();
    cursor.advanceOffset(move, true);
    expect(cursor.partialTab).toBe(partial);
    cursor.findNextNonspace();
    expect([cursor.nextNonspace, cursor.nextNonspaceColumn, cursor.indent, cursor.blank]).toEqual([
      4,
      5,
      5 - move,
      false,
    ]);
  });

  it('searches again on the next line and past the run', () => {
    const cursor = new LineCursor('   x  y\n\tz');
    cursor.startLine(0);
    cursor.findNextNonspace();
    cursor.advanceOffset(4, false);
    cursor.findNextNonspace();
    expect([cursor.nextNonspace, cursor.nextNonspaceColumn, cursor.indent]).toEqual([6, 6, 2]);
    cursor.startLine(8);
    cursor.findNextNonspace();
    expect([cursor.nextNonspace, cursor.nextNonspaceColumn, cursor.indent]).toEqual([9, 4, 4]);
  });
});
