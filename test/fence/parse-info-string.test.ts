import { describe, expect, it } from 'vitest';
import type { FenceFormatCode } from '../../src/fence/fence-block.js';
import { parseInfoString } from '../../src/fence/parse-info-string.js';

describe('parseInfoString', () => {
  it.each([
    ['ts file=src/a.ts', 'ts', 'src/a.ts'],
    ['c++ file=x.cc', 'c++', 'x.cc'],
    ['objective-c file=a.m', 'objective-c', 'a.m'],
    ['d.ts file=types.d.ts', 'd.ts', 'types.d.ts'],
    ['snake_case file=a', 'snake_case', 'a'],
    ['ts\tfile=a.ts', 'ts', 'a.ts'],
    ['ts \t  file=a.ts', 'ts', 'a.ts'],
    ['ts file=a.ts   ', 'ts', 'a.ts'],
    ['  ts file=a.ts', 'ts', 'a.ts'],
    ['text file=.env', 'text', '.env'],
    ['py file=pkg/__init__.py', 'py', 'pkg/__init__.py'],
    ['ts file=../escape.ts', 'ts', '../escape.ts'],
    ['ts file=a%2Fb.ts', 'ts', 'a%2Fb.ts'],
    ['ts file=a=b.ts', 'ts', 'a=b.ts'],
  ])('accepts %j as lang %j with file %j', (info, lang, declaredFile) => {
    expect(parseInfoString(info)).toEqual({ lang, declaredFile, problem: undefined });
  });

  it.each<[string, FenceFormatCode, string, string]>([
    ['file=a.ts', 'missing_lang', '', 'a.ts'],
    ['file=a.ts ts', 'missing_lang', '', 'a.ts'],
    ['lang=ts file=a.ts', 'missing_lang', '', 'a.ts'],
    ['', 'missing_lang', '', ''],
    ['c# file=a.cs', 'invalid_lang', 'c#', 'a.cs'],
    ['ts,js file=a.ts', 'invalid_lang', 'ts,js', 'a.ts'],
    ['日本 file=a.txt', 'invalid_lang', '日本', 'a.txt'],
    ['ts file=', 'empty_path', 'ts', ''],
    ['ts file= a.ts', 'empty_path', 'ts', ''],
    ['ts file="a.ts"', 'quoted_path', 'ts', '"a.ts"'],
    ["ts file='a.ts'", 'quoted_path', 'ts', "'a.ts'"],
    ['py file="my file.py"', 'quoted_path', 'py', '"my'],
    ['ts file=`a.ts`', 'quoted_path', 'ts', '`a.ts`'],
    ['ts file="a.ts" title=x', 'quoted_path', 'ts', '"a.ts"'],
    ['ts file=a.ts title=x', 'extra_attributes', 'ts', 'a.ts'],
    ['ts file=a.ts linenums', 'extra_attributes', 'ts', 'a.ts'],
    ['ts title=x file=a.ts', 'extra_attributes', 'ts', 'a.ts'],
    ['ts file=a.ts file=b.ts', 'extra_attributes', 'ts', 'a.ts'],
    ['ts file=a\u00a0b.ts', 'extra_attributes', 'ts', 'a\u00a0b.ts'],
    ['ts path=a.ts', 'unsupported_key', 'ts', ''],
    ['ts filename=a.ts', 'unsupported_key', 'ts', ''],
    ['ts output=a.ts', 'unsupported_key', 'ts', ''],
    ['ts FILE=a.ts', 'unsupported_key', 'ts', ''],
    ['ts title="x" path=a.ts', 'unsupported_key', 'ts', ''],
    ['ts', 'missing_file', 'ts', ''],
    ['ts =a.ts', 'missing_file', 'ts', ''],
    ['ts file', 'missing_file', 'ts', ''],
    ['ts:src/x.ts', 'lang_colon_path', 'ts', 'src/x.ts'],
    ['ts:src/x.ts {1,3}', 'lang_colon_path', 'ts', 'src/x.ts'],
    ['ts:src/x.ts file=b.ts', 'lang_colon_path', 'ts', 'b.ts'],
    ['c#:a.cs x=1', 'invalid_lang', 'c#:a.cs', ''],
    ['ts title=src/x.ts', 'unsupported_key', 'ts', ''],
  ])('gives %j the code %s (lang %j, file %j)', (info, code, lang, declaredFile) => {
    const reading = parseInfoString(info);
    expect(reading.problem?.code).toBe(code);
    expect([reading.lang, reading.declaredFile]).toEqual([lang, declaredFile]);
  });

  it.each([
    ['ts path=a.ts', 'info string uses path=; write ```ts file=a.ts'],
    ['ts FILE=a.ts', 'info string uses FILE=; write ```ts file=a.ts'],
    ['ts title=src/x.ts', 'info string uses title=; write ```ts file=src/x.ts'],
    ['py title="src/main.py"', 'info string uses title=; write ```py file=src/main.py'],
    ['ts title="x" path=a.ts', 'info string uses path=; write ```ts file=a.ts'],
    ['ts {1,3} title=Example', 'info string uses title=; write file=<relative path>'],
    ['py title="My example"', 'info string uses title=; write file=<relative path>'],
    ['ts x=1', 'info string uses x=; write file=<relative path>'],
    [
      'ts:src/x.ts',
      "info string joins the path to the language with ':' (ts:src/x.ts); write ```ts file=src/x.ts",
    ],
    [
      'ts file=a.ts title=x',
      "info string has 'title=x' besides file=; write only <lang> file=<relative path>",
    ],
    ['c# file=a.cs', "language 'c#'"],
    ['ts file=a\u00a0b.ts', 'U+00A0'],
  ])('explains %j with a message saying what to write', (info, message) => {
    expect(parseInfoString(info).problem?.message).toContain(message);
  });

  it('bounds how much of a hostile info string a message repeats', () => {
    const message = parseInfoString(`${'#'.repeat(10_000)} file=a`).problem?.message ?? '';
    expect(message.length).toBeLessThan(300);
    for (const info of [`ts:${'a/'.repeat(5_000)}x`, `${'a'.repeat(10_000)} title=${'b.'.repeat(5_000)}`]) {
      expect(parseInfoString(info).problem?.message.length).toBeLessThan(300);
    }
  });

  it('shows the opening fence it is given in the line to write', () => {
    expect(parseInfoString('md path=README.md', '````').problem?.message).toContain(
      'write ````md file=README.md',
    );
  });
});
