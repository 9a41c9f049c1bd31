import { describe, expect, it } from 'vitest';
import type { FenceFormatCode } from '../../src/fence/fence-block.js';
import { judgeFence } from '../../src/fence/judge-fence.js';
import type { RawFence } from '../../src/fence/read-fenced-blocks.js';

function fence(fields: Partial<RawFence>): RawFence {
  const info = fields.info ?? 'ts file=a.ts';
  return {
    fenceChar: '`',
    fenceLength: 3,
    rawInfo: info,
    info,
    content: 'x\n',
    closed: true,
    reachesEnd: false,
    startLine: 1,
    endLine: 3,
    ...fields,
  };
}

describe('judgeFence', () => {
  it.each<[string, Partial<RawFence>, boolean]>([
    ['an info string with =', { info: 'ts file=a.ts' }, true],
    ['an = from a decoded reference', { rawInfo: 'ts file&#61;a', info: 'ts file=a' }, true],
    ['= anywhere', { info: 'python x=1' }, true],
    ['a plain language', { info: 'bash' }, false],
    ['no info string', { info: '' }, false],
    ['a reference that decodes to no =', { rawInfo: 'ts &amp;', info: 'ts &' }, false],
    ['a path joined to the language with :', { info: 'ts:src/x.ts' }, true],
    ['a : from a decoded reference', { rawInfo: 'ts&#58;src/x.ts', info: 'ts:src/x.ts' }, true],
    ['c++', { info: 'c++' }, false],
    ['a highlight range', { info: 'js {1,3}' }, false],
    ['a flag after :, not a path', { info: 'ts:line-numbers' }, false],
    ['a URL', { info: 'https://example.com/x.ts' }, false],
  ])('makes %s a candidate: %s', (_name, fields, candidate) => {
    expect(judgeFence(fence(fields)).candidate).toBe(candidate);
  });

  it.each<[string, Partial<RawFence>, FenceFormatCode | 'valid']>([
    ['valid block', {}, 'valid'],
    [
      'valid four-backtick markdown block holding a closed fence',
      { info: 'md file=R.md', fenceLength: 4, content: '```sh\nx\n```\n' },
      'valid',
    ],
    ['tilde before the grammar', { fenceChar: '~', info: 'path=a' }, 'tilde_fence'],
    ['tilde before unterminated', { fenceChar: '~', closed: false }, 'tilde_fence'],
    ['grammar before unterminated', { info: 'ts path=a.ts', closed: false }, 'unsupported_key'],
    ['a path joined with :', { info: 'ts:src/x.ts' }, 'lang_colon_path'],
    ['a path joined with : before unterminated', { info: 'ts:src/x.ts', closed: false }, 'lang_colon_path'],
    ['grammar before nesting', { info: 'md path=R.md', content: '```sh\n' }, 'unsupported_key'],
    ['unterminated', { closed: false, reachesEnd: true }, 'unterminated'],
    [
      'unterminated before nesting',
      { info: 'md file=R.md', closed: false, content: '```sh\n' },
      'unterminated',
    ],
    [
      'markdown ending inside an open fence',
      { info: 'md file=R.md', content: '# T\n```bash\nnpm i\n' },
      'ambiguous_nesting',
    ],
    ['markdown, any case', { info: 'MarkDown file=R.md', content: '~~~\nx\n' }, 'ambiguous_nesting'],
    ['mdx', { info: 'mdx file=R.mdx', content: '```\n' }, 'ambiguous_nesting'],
    [
      'markdown ending inside an open fence in a list',
      { info: 'md file=R.md', content: '- ```\n  x\n' },
      'ambiguous_nesting',
    ],
    ['markdown whose inner fence closed', { info: 'md file=R.md', content: '```sh\nx\n```\n' }, 'valid'],
    [
      'markdown whose inner fence its blockquote ended',
      { info: 'md file=R.md', content: '> ```\n> x\n\ny\n' },
      'valid',
    ],
    [
      'another language ending inside an open fence',
      { info: 'txt file=a.txt', content: '```\nx\n' },
      'valid',
    ],
  ])('%s', (_name, fields, expected) => {
    const { verdict } = judgeFence(fence(fields));
    expect(verdict.valid ? 'valid' : verdict.code).toBe(expected);
  });

  it('carries the language and declared file of an invalid block', () => {
    expect(judgeFence(fence({ info: 'md file=R.md', closed: false }))).toMatchObject({
      lang: 'md',
      declaredFile: 'R.md',
    });
  });

  it.each<[Partial<RawFence>, string]>([
    [{ closed: false, fenceLength: 4 }, 'end it with a ```` line'],
    [{ info: 'md file=R.md', content: '```\n' }, 'more backticks than any fence inside (````md file=...)'],
    [{ fenceChar: '~' }, 'fence files with backticks'],
    [{ info: 'ts:src/x.ts' }, 'write ```ts file=src/x.ts'],
    [{ info: 'ts title=src/x.ts' }, 'write ```ts file=src/x.ts'],
    [{ info: 'md:README.md', fenceLength: 4 }, 'write ````md file=README.md'],
  ])('says what to write instead (%j)', (fields, message) => {
    const { verdict } = judgeFence(fence(fields));
    expect(verdict.valid ? '' : verdict.message).toContain(message);
  });
});
