import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FenceParser } from '../../src/project/index.js';
import { parseFences } from '../../src/fence/parse-fences.js';
import { asReferenceReadsIt, type InfoAndContent, referenceFences } from './corpus/reference-fences.js';

interface SpecExample {
  readonly markdown: string;
  readonly number: number;
  readonly section: string;
}

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { readonly tests: readonly SpecExample[] };
const propertyRuns = Number(process.env.FENCE_PROPERTY_RUNS ?? 300);
/** Every test runs with each parser, so that both hold whichever is the default. */
const parsers: readonly FenceParser[] = ['scanner', 'micromark'];

/** Our fenced code blocks in commonmark.js's terms, which stores every line ending as \n. */
function ourFences(markdown: string, parser: FenceParser): InfoAndContent[] {
  return parseFences(markdown, { all: true, parser }).blocks.map((block) => [
    block.info,
    block.content.replace(/\r\n?/g, '\n'),
  ]);
}

describe.each(parsers)('CommonMark spec examples with parser %s', (parser) => {
  const examples = spec.tests.map((example) => ({
    ...example,
    markdown: example.markdown.replace(/→/g, '\t'),
  }));

  it('loads every example of the spec', () => {
    expect(examples.length).toBe(652);
  });

  it('agrees on all examples joined into one document, which micromark receives in many slices', () => {
    const joined = asReferenceReadsIt(examples.map((example) => example.markdown).join('\n\n'));
    expect(ourFences(joined, parser)).toEqual(referenceFences(joined));
    expect(ourFences(joined, parser).length).toBeGreaterThan(20);
  });

  it.each(examples)('agrees with commonmark.js on example $number ($section)', ({ markdown }) => {
    expect(ourFences(markdown, parser)).toEqual(referenceFences(markdown));
  });
});

const fenceInfo = fc.constantFrom(
  '',
  'ts',
  'ts file=src/a.ts',
  'md file=README.md',
  'markdown file=docs/x.md',
  'py file="my file.py"',
  'js  path=a.js ',
  'c++\tfile=x.cc',
  'ts file\\=a.ts',
  'ts file&#61;a.ts',
  'f&ouml;o',
  ' bash',
);
const codeLine = fc.constantFrom(
  'x = 1',
  '',
  '  two spaces',
  '\ttab',
  '  \tmixed',
  '     ',
  '\t',
  '```',
  '~~~',
  '````',
  '```bash',
  '```ts file=inner.ts',
  '   ```',
  '    ```',
  '> quoted',
  '- item',
  '<div>',
  '# heading',
  'ü ✓ 漢字',
);

/** One fenced block: opening line, content lines and an optional closing line. */
const fencedBlock = fc
  .record({
    char: fc.constantFrom('`', '~'),
    length: fc.integer({ min: 3, max: 5 }),
    indent: fc.constantFrom('', ' ', '  ', '   '),
    info: fenceInfo,
    lines: fc.array(codeLine, { maxLength: 5 }),
    closing: fc.constantFrom('same', 'longer', 'shorter', 'other', 'none', 'indented'),
  })
  .map(({ char, length, indent, info, lines, closing }) => {
    const fence = char.repeat(length);
    const close = {
      same: [fence],
      longer: [`${fence}${char}`],
      shorter: [char.repeat(length - 1)],
      other: [(char === '`' ? '~' : '`').repeat(length)],
      none: [],
      indented: [`  ${fence}  `],
    }[closing];
    return [`${indent}${fence}${info}`, ...lines, ...close];
  });

const leafBlock: fc.Arbitrary<readonly string[]> = fc.oneof(
  { weight: 5, arbitrary: fencedBlock },
  fc.constantFrom<readonly string[]>(
    ['a paragraph with = and `code`', 'continued'],
    ['Heading', '---'],
    ['<div>', '```ts file=hidden.ts', '</div>'],
    ['<!--', '```', '-->'],
    ['    ```ts file=indented.ts', '    x'],
    ['    indented code'],
    [''],
    ['* * *'],
  ),
);

/** A leaf block, possibly wrapped in block quote or list item containers (CommonMark 5). */
const block: fc.Arbitrary<readonly string[]> = fc
  .tuple(
    leafBlock,
    fc.array(fc.constantFrom('quote', 'lazyQuote', 'bullet', 'ordered', 'orderedFrom2'), { maxLength: 2 }),
  )
  .map(([lines, containers]) =>
    containers.reduce<readonly string[]>(
      (inner, container) =>
        inner.map((line, index) => {
          switch (container) {
            case 'quote':
              return `> ${line}`;
            case 'lazyQuote':
              return index === 0 ? `> ${line}` : line;
            case 'bullet':
              return index === 0 ? `- ${line}` : `  ${line}`;
            case 'ordered':
              return index === 0 ? `1. ${line}` : `   ${line}`;
            case 'orderedFrom2':
              return index === 0 ? `2. ${line}` : `   ${line}`;
          }
        }),
      lines,
    ),
  );

/**
 * A random document assembled from blocks, with one line ending style, so that content compares with
 * commonmark.js's \n-only content unambiguously (mixed endings are covered in read-fenced-blocks.test.ts).
 */
const documentArbitrary = fc
  .record({
    blocks: fc.array(block, { minLength: 1, maxLength: 6 }),
    ending: fc.constantFrom('\n', '\r\n', '\r'),
    bom: fc.boolean(),
  })
  .map(({ blocks, ending, bom }) => ({
    body: (bom ? '\uFEFF' : '') + blocks.flat().join(ending),
    ending,
  }));

describe.each(parsers)('random documents with parser %s', (parser) => {
  it('agree with commonmark.js on the info string and content of every fenced block', () => {
    fc.assert(
      fc.property(documentArbitrary, ({ body, ending }) => {
        const markdown = body + ending;
        expect(ourFences(markdown, parser)).toEqual(referenceFences(asReferenceReadsIt(markdown)));
      }),
      { numRuns: propertyRuns },
    );
  });

  // commonmark.js gives every line of a block a \n, so without a final line ending it cannot tell whether a
  // last line holding only container markers (`> `) belongs to the block; compare with the ended document.
  it('parse without a final line ending like the same document with one, minus that ending', () => {
    fc.assert(
      fc.property(documentArbitrary, ({ body, ending }) => {
        const unended = parseFences(body, { all: true, parser }).blocks;
        const ended = parseFences(body + ending, { all: true, parser }).blocks;
        expect(unended.map((block) => [block.info, block.startLine, block.closed])).toEqual(
          ended.map((block) => [block.info, block.startLine, block.closed]),
        );
        unended.forEach((block, index) => {
          const content = ended[index]?.content;
          expect([block.content, block.content + ending]).toContain(content);
        });
      }),
      { numRuns: propertyRuns },
    );
  });
});
