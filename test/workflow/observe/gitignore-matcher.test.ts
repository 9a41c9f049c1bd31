import { describe, expect, it } from 'vitest';
import { compileGitignore } from '../../../src/workflow/index.js';

// Each row: .gitignore text, path, expected verdict (checked against git check-ignore by hand).
const cases: readonly [string, string, string, boolean][] = [
  ['a name matches at any depth', 'build', 'src/build/out.js', true],
  ['a name matches a file too', 'secret.txt', 'a/b/secret.txt', true],
  ['a comment is not a pattern', '# secret.txt', 'secret.txt', false],
  ['an escaped # is a literal', '\\#notes', '#notes', true],
  ['a leading slash anchors to the root', '/build', 'src/build/out.js', false],
  ['a leading slash matches at the root', '/build', 'build/out.js', true],
  ['a middle slash anchors too', 'src/gen', 'lib/src/gen/x.ts', false],
  ['a middle slash matches from the root', 'src/gen', 'src/gen/x.ts', true],
  ['a trailing slash matches folders only', 'logs/', 'logs', false],
  ['a trailing slash matches files inside', 'logs/', 'app/logs/today.txt', true],
  ['* does not cross a slash', 'src/*.js', 'src/a/b.js', false],
  ['* matches within a name', '*.log', 'deep/er/debug.log', true],
  ['? matches one character', 'file?.txt', 'file1.txt', true],
  ['? does not match two', 'file?.txt', 'file12.txt', false],
  ['[...] is a character class', 'v[0-9].md', 'v7.md', true],
  ['[!...] negates the class', 'v[!0-9].md', 'v7.md', false],
  ['leading **/ matches at any depth', '**/cache', 'a/b/cache/x', true],
  ['trailing /** matches everything inside', 'out/**', 'out/a/b.txt', true],
  ['trailing /** does not match the folder name as a file', 'out/**', 'out', false],
  ['middle /**/ matches zero folders', 'a/**/b.txt', 'a/b.txt', true],
  ['middle /**/ matches several folders', 'a/**/b.txt', 'a/x/y/b.txt', true],
  ['negation re-includes a file', '*.log\n!keep.log', 'keep.log', false],
  ['the last matching rule wins', '!keep.log\n*.log', 'keep.log', true],
  ['negation cannot re-include inside an ignored folder', 'dist/\n!dist/keep.js', 'dist/keep.js', true],
  ['trailing spaces are trimmed', 'tmp.txt   ', 'tmp.txt', true],
  ['CRLF line ends work', 'a.txt\r\nb.txt\r\n', 'b.txt', true],
  ['dots are literal', '*.js', 'fileXjs', false],
  ['an unclosed [ is skipped', '[abc\nz.txt', 'z.txt', true],
  ['an empty file ignores nothing', '', 'anything', false],
];

describe('compileGitignore', () => {
  it.each(cases)('%s', (_name, text, file, expected) => {
    expect(compileGitignore(text).ignores(file)).toBe(expected);
  });
});
