import { describe, expect, it } from 'vitest';
import { readColonPath } from '../../src/fence/read-colon-path.js';

describe('readColonPath', () => {
  it.each([
    ['ts:src/x.ts', 'ts', 'src/x.ts'],
    ['python:main.py', 'python', 'main.py'],
    ['c++:src/a.cc', 'c++', 'src/a.cc'],
    ['sh:.env', 'sh', '.env'],
    ['ts:src/x.ts {1,3}', 'ts', 'src/x.ts'],
    ['ts:workspace/src/x.ts', 'ts', 'workspace/src/x.ts'],
    ['text:../escape.txt', 'text', '../escape.txt'],
  ])('reads %j as lang %j and path %j', (info, lang, path) => {
    expect(readColonPath(info)).toEqual({ lang, path });
  });

  it.each([
    ['a plain language', 'ts'],
    ['a language with a highlight range', 'js {1,3}'],
    ['c++', 'c++'],
    ['a VitePress line-number flag', 'ts:line-numbers'],
    ['a word with no / or .', 'console:session'],
    ['a URL', 'https://example.com/a.ts'],
    ['a path that starts at the root', 'ts:/etc/passwd'],
    ['a backslash start', 'ts:\\a.ts'],
    ['a colon in a later word', 'scala mdoc:silent.x'],
    ['an attribute after the colon', 'js:title=example.js'],
    ['a quoted path', 'ts:"a.ts"'],
    ['no language', ':src/x.ts'],
    ['a language outside [A-Za-z0-9_+.-]', 'c#:a.cs'],
    ['nothing after the colon', 'ts:'],
    ['an empty info string', ''],
  ])('reads no path from %s (%j)', (_name, info) => {
    expect(readColonPath(info)).toBeUndefined();
  });
});
