import { describe, expect, it } from 'vitest';
import { countLineChanges } from '../../../src/artifacts/record/count-line-changes.js';

const cases: readonly (readonly [
  name: string,
  previous: string | null,
  next: string,
  added: number,
  removed: number,
])[] = [
  ['a first version counts every line as added', null, 'a\nb\nc\n', 3, 0],
  ['a first version without a final newline still counts its last line', null, 'a\nb', 2, 0],
  ['an empty first version adds nothing', null, '', 0, 0],
  ['a first version of one newline is one line', null, '\n', 1, 0],
  ['identical texts change nothing', 'a\nb\n', 'a\nb\n', 0, 0],
  ['two empty texts change nothing', '', '', 0, 0],
  ['an appended line is one added', 'a\n', 'a\nb\n', 1, 0],
  ['a deleted line is one removed', 'a\nb\nc\n', 'a\nc\n', 0, 1],
  ['an edited line is one removed and one added', 'a\nb\nc\n', 'a\nB\nc\n', 1, 1],
  ['emptying a file removes every line', 'a\nb\n', '', 0, 2],
  ['filling an empty file adds every line', '', 'a\nb\n', 2, 0],
  ['adding a final newline changes the last line', 'a\nb', 'a\nb\n', 1, 1],
  ['removing a final newline changes the last line', 'a\nb\n', 'a\nb', 1, 1],
  ['CRLF lines count like LF lines', null, 'a\r\nb\r\n', 2, 0],
  ['identical CRLF texts change nothing', 'a\r\nb\r\n', 'a\r\nb\r\n', 0, 0],
  ['switching LF to CRLF changes every line', 'a\nb\n', 'a\r\nb\r\n', 2, 2],
  ['an edited CRLF line is one removed and one added', 'a\r\nb\r\n', 'a\r\nc\r\n', 1, 1],
];

describe('countLineChanges', () => {
  it.each(cases)('%s', (_name, previous, next, linesAdded, linesRemoved) => {
    expect(countLineChanges(previous, next)).toEqual({ linesAdded, linesRemoved });
  });
});
