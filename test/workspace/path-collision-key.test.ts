import { describe, expect, it } from 'vitest';
import { pathCollisionKey } from '../../src/workspace/paths/path-collision-key.js';

const colliding: readonly (readonly [string, string])[] = [
  ['README.md', 'readme.md'],
  ['src/App.tsx', 'SRC/app.TSX'],
  ['Straße.txt', 'STRASSE.txt'],
  ['café.txt', 'cafe\u0301.txt'],
  ['\u01f0.txt', 'J\u030c.txt'],
  ['\u212a.txt', 'k.txt'],
  ['ΣΊΣΥΦΟΣ.md', 'σίσυφος.md'],
  ['ı.txt', 'I.txt'],
  ['ﬁle.txt', 'FILE.txt'],
];

const distinct: readonly (readonly [string, string])[] = [
  ['a.txt', 'b.txt'],
  ['a/b.txt', 'a-b.txt'],
  ['file1', 'file2'],
  ['a.txt', 'a.txt.bak'],
];

describe('pathCollisionKey', () => {
  it.each(colliding)('gives %s and %s the same key', (left, right) => {
    expect(pathCollisionKey(left)).toBe(pathCollisionKey(right));
  });

  it.each(distinct)('keeps %s and %s apart', (left, right) => {
    expect(pathCollisionKey(left)).not.toBe(pathCollisionKey(right));
  });
});
