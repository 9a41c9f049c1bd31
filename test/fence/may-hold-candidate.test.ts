import { describe, expect, it } from 'vitest';
import { mayHoldCandidate } from '../../src/fence/may-hold-candidate.js';

describe('mayHoldCandidate', () => {
  it.each<[string, string, boolean]>([
    ['empty text', '', false],
    ['prose with = and &', 'a = b & c\n', false],
    ['a plain fence', '```ts\nconst a = 1;\n```\n', false],
    ['= on the line after the fence', '```ts\n=\n', false],
    ['= after a CR line ending', '```ts\r=\r', false],
    ['= after a CRLF line ending', '```ts\r\n= &\r\n', false],
    ['= before the fence run', 'a = ```ts\n', false],
    ['two backticks', '``ts file=a\n', false],
    ['two tildes', '~~ts file=a\n', false],
    ['a backtick attribute', '```ts file=a.ts\n', true],
    ['a tilde attribute', '~~~ts file=a.ts\n', true],
    ['a reference that could decode to =', '```ts file&#61;a\n', true],
    ['any &', '```ts &amp;\n', true],
    ['a path joined with :', '```ts:src/x.ts\n', true],
    [': on the line after the fence', '```ts\nkey: value\n', false],
    ['a longer run', '`````ts file=a\n', true],
    ['a quoted fence line', '> - ```ts file=a\n', true],
    ['the last line without an ending', 'text\n```ts file=a', true],
    ['a later line', '```\n```\n\ntext\n```ts file=a\n', true],
    ['a later line after CRs', '```\r```\r```ts file=a\r', true],
    ['inline code, which only a parse can rule out', 'use ```x=1``` here\n', true],
  ])('%s: %s', (_name, markdown, expected) => {
    expect(mayHoldCandidate(markdown, false)).toBe(expected);
  });

  it.each<[string, boolean]>([
    ['text = &\n', false],
    ['``not a fence``\n', false],
    ['```\n', true],
    ['~~~\n', true],
    ['x ``` y\n', true],
  ])('with all, looks only for a fence run in %j', (markdown, expected) => {
    expect(mayHoldCandidate(markdown, true)).toBe(expected);
  });

  // Its time is measured in `npm run bench` (t(2n)/t(n), test/bench/hostile-inputs.ts); here, the answer.
  it('answers no for a 10 MB text of many fences without =', () => {
    const text = '```ts\nconst a = 1;\n```\n\n'.repeat(500_000);
    expect(mayHoldCandidate(text, false)).toBe(false);
    expect(mayHoldCandidate(`${text}\`\`\`ts file=a.ts\n`, false)).toBe(true);
  });
});
