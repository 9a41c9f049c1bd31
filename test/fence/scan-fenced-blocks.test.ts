import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { Parser } from 'commonmark';
import { describe, expect, it } from 'vitest';
import { ParseDeadlineExceeded, readFencedBlocks } from '../../src/fence/read-fenced-blocks.js';
import { scanFencedBlocks } from '../../src/fence/scan-fenced-blocks.js';
import { scanFences } from '../../src/fence/scan-fences.js';
import { generateDocument } from './corpus/generate-document.js';

const require = createRequire(import.meta.url);
const spec = require('commonmark-spec') as { readonly tests: readonly { readonly markdown: string }[] };
const examples = spec.tests.map((example) => example.markdown.replace(/→/g, '\t'));
const fenceFixtures = fileURLToPath(new URL('../../fixtures/fence/', import.meta.url));
const fixtureNames = readdirSync(fenceFixtures, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const propertyRuns = Number(process.env.FENCE_PROPERTY_RUNS ?? 1000);

/** The scanner's contract: exactly micromark's blocks, field for field. */
function expectSameAsMicromark(markdown: string): void {
  expect(scanFencedBlocks(markdown)).toEqual(readFencedBlocks(markdown));
}

describe('scanFencedBlocks against readFencedBlocks', () => {
  it('sees all 652 CommonMark spec examples', () => {
    expect(examples).toHaveLength(652);
  });

  it.each(examples.map((markdown, index) => [index + 1, markdown] as const))(
    'agrees on spec example %i',
    (_number, markdown) => {
      expectSameAsMicromark(markdown);
    },
  );

  it('agrees on all spec examples joined into one document', () => {
    const joined = examples.join('\n\n');
    expect(scanFencedBlocks(joined).length).toBeGreaterThan(20);
    expectSameAsMicromark(joined);
  });

  it.each(fixtureNames)('agrees on fixture %s', (name) => {
    expectSameAsMicromark(readFileSync(join(fenceFixtures, name, 'input.md'), 'utf8'));
  });

  it.each<[string, string]>([
    ['tab after a block quote marker', '>\t```\n>\t\tx\n>\t```\n'],
    ['tab as list item spacing', '-\t```\n\t  x\n\t```\n'],
    ['partial tab in fence indentation', '  ```\n\tx\n \ty\n  ```\n'],
    ['tab in a nested quote prefix', '> >\t```\n> >\t x\n'],
    ['lazy paragraph line in a quote', '> para\n```\nx\n```\n'],
    ['lazy line does not continue a fence', '> ```\nb\n```\n'],
    ['nested quote in a list item', '- > ```ts file=a.ts\n  > x\n  > ```\n'],
    ['list in a quote in a list', '1. > - ```\n   >   x\n'],
    ['CRLF endings', '```\r\na\r\n\r\n```\r\n'],
    ['CR endings', '> ```\r> a\r>\r'],
    ['mixed endings', '- ```\n  a\r\n  b\r  ```'],
    ['a leading BOM', '\uFEFF```ts\nx\n```\n'],
    ...[3, 4, 5, 6, 7, 8, 9, 10].flatMap((length): [string, string][] => [
      [
        `backtick fence of ${String(length)}`,
        `${'`'.repeat(length)}ts\n${'`'.repeat(length - 1)}\nx\n${'`'.repeat(length)}\n`,
      ],
      [
        `tilde fence of ${String(length)}`,
        `${'~'.repeat(length)}\n${'~'.repeat(length + 1)}x\n${'~'.repeat(length + 1)}\n`,
      ],
    ]),
    ['unclosed at the end', '```\nx\n'],
    ['unclosed at the end without an ending', '```\nx'],
    ['unclosed at a quote end', '> ```\n> x\n\ny\n'],
    ['unclosed at a list item end', '- ```\n  x\ny\n'],
    ['last line only a quote marker', ' > ~~~\n> '],
    ['last line only a list item indentation', '- ```\n  x\n  '],
    ['last line only the fence indentation', '  ```\n  '],
    ['last line a partial tab after a quote', '>```\n>\t'],
    ['last line only a quote marker, nested in an item', '- > ```\n  >'],
    ['last line a blank beyond the item width', '- ```\n     '],
    ['html block 1 holds a fence', '<pre>\n```\nx\n</pre>\n```\ny\n```\n'],
    ['html block 2 holds a fence', '<!--\n```\n-->\n```\ny\n```\n'],
    ['html block 3 holds a fence', '<?php\n```\n?>\n```\ny\n```\n'],
    ['html block 4 holds a fence', '<!X\n```\n>\n```\ny\n```\n'],
    ['html block 5 holds a fence', '<![CDATA[\n```\n]]>\n```\ny\n```\n'],
    ['html block 6 holds a fence until a blank line', '<div>\n```\n\n```\ny\n```\n'],
    ['html block 7 holds a fence until a blank line', '<del>\n```\n\n```\ny\n```\n'],
    ['html block 7 cannot interrupt a paragraph', 'para\n<del>\n```\ny\n```\n'],
    ['setext underline, not a fence', 'Heading\n---\n```\nx\n```\n'],
    ['definitions take no setext underline', '[a]: /u\n-\n2) ```\nx\n'],
    ['definition with a title takes no underline', '[a]: /u "t"\n===\n```\nx\n'],
    ['a paragraph after definitions takes an underline', '[a]: /u\nb\n---\n2) ```\nx\n'],
    // `-` after definitions only is no underline but a paragraph line, and `2) ` cannot interrupt a paragraph:
    // the fence exists only where the underline was taken.
    ['a definition over LF-joined lines takes no underline', '[a]:\n/u\n"t"\n-\n2) ```\nx\n'],
    ['a definition over CRLF lines takes no underline', '[a]:\r\n/u\r\n"t"\r\n-\r\n2) ```\r\nx\r\n'],
    ['a definition over CR lines takes no underline', '[a]:\r/u\r"t"\r-\r2) ```\rx\r'],
    ['a definition over mixed endings takes no underline', '[a]:\r\n/u\n"t"\r-\n2) ```\nx\n'],
    ['a quoted definition over lazy lines takes no underline', '> [a]:\n/u\n> "t"\n> -\n> 2) ```\n> x\n'],
    ['an indented line in a definition', '[a]:\n   /u\n  "t"\n-\n2) ```\nx\n'],
    ['10,000 definitions, then an underline', `${'[a]: /u\n'.repeat(10_000)}-\n2) \`\`\`\nx\n`],
    ['indented code, not a list continuation', '- a\n\n      ```\n      x\n'],
    ['list continuation, not indented code', '- a\n\n  ```\n  x\n  ```\n'],
    ['empty list item cannot interrupt a paragraph', 'para\n-\n```\nx\n```\n'],
    ['ordered item from 2 cannot interrupt a paragraph', 'para\n2. ```\nx\n'],
    ['ordered item 01 cannot interrupt a paragraph', 'para\n01. ```\nx\n'],
    ['empty item ends at a blank line', '-\n\n  ```\n  x\n'],
    ['NUL in info and content', '```a\u0000b\nc\u0000\n```\n'],
    ['a backtick in a backtick info string', '``` a`b\nx\n```\n'],
    ['one long line of backticks', '`'.repeat(10_000)],
  ])('agrees on %s', (_name, markdown) => {
    expectSameAsMicromark(markdown);
  });
});

const prefix = fc.constantFrom(
  '',
  '',
  '> ',
  '>',
  ' > ',
  '- ',
  '* ',
  '1. ',
  '2) ',
  '  ',
  '   ',
  '    ',
  '\t',
  '>\t',
  '-\t',
  '  - ',
);
const body = fc.constantFrom(
  '```',
  '````',
  '~~~',
  '```ts file=a.ts',
  '~~~ x`y',
  '``` a`b',
  '   ```',
  'text',
  '',
  '---',
  '===',
  '***',
  '<div>',
  '<!--',
  '-->',
  '<pre>',
  '# h',
  '[a]: /u',
  '    code',
  '\tcode',
  '  \t x',
  '-',
  '1.',
  '2.',
  '``` &ouml; \\= x',
);
const line = fc
  .tuple(fc.array(prefix, { maxLength: 3 }), body)
  .map(([prefixes, text]) => prefixes.join('') + text);
const documentArbitrary = fc
  .record({
    lines: fc.array(line, { minLength: 1, maxLength: 10 }),
    ending: fc.constantFrom('\n', '\r\n', '\r'),
    final: fc.boolean(),
  })
  .map(({ lines, ending, final }) => lines.join(ending) + (final ? ending : ''));

// micromark 4 starts an HTML block (kind 7) on a second lazy line holding a tag, which CommonMark 5.1 makes
// paragraph continuation text; there the scanner follows commonmark.js, the reference, and not micromark.
describe('scanFencedBlocks where micromark departs from CommonMark', () => {
  it('keeps two lazy tag lines in the paragraph, as commonmark.js does', () => {
    const markdown = '> a\n<del>\n<del>\n```\nx\n```\n';
    const walker = new Parser().parse(markdown).walker();
    const reference: string[] = [];
    for (let step = walker.next(); step !== null; step = walker.next())
      if (step.entering && step.node.type === 'code_block') reference.push(step.node.literal ?? '');
    expect(scanFencedBlocks(markdown).map((block) => block.content)).toEqual(reference);
    expect(reference).toEqual(['x\n']);
    expect(readFencedBlocks(markdown)).toEqual([]);
  });
});

// Bodies leave out closing tags such as `</pre>`, which reach the micromark departure above through lazy lines.
describe('scanFencedBlocks on random container-heavy documents', () => {
  it('returns exactly what readFencedBlocks returns', () => {
    fc.assert(
      fc.property(documentArbitrary, (markdown) => {
        expectSameAsMicromark(markdown);
      }),
      { numRuns: propertyRuns },
    );
  });
});

// Found by the 1,000,000-document run of `npm run bench` (seeds 403200, 754115, 929275): micromark counts a
// fence its unmatched containers close on a last line without an ending as open to the end of the document
// when that line ends in a tab the matched prefixes use only in part.
describe('scanFencedBlocks on a last line that ends in a partly used tab', () => {
  it.each([
    '>>~~~\n>\t',
    '>>>~~~\n > >\t',
    '1. >```\n\t',
    ' - >~~~\r\n  \t',
    '\r\n1. x>\n\n1. >- ```\n\t',
    '>>~~~\n>\t\t',
    '>>~~~\n> \t',
    '>~~~\n\t',
    '>>~~~\n>>\t',
    '>>>~~~\n > >\t\n',
  ])("gives micromark's blocks for %j", (markdown) => {
    expectSameAsMicromark(markdown);
  });

  it.each([403200, 754115, 929275])("gives micromark's blocks for corpus seed %i", (seed) => {
    expectSameAsMicromark(generateDocument(seed));
  });
});

describe('scanFencedBlocks on hostile input', () => {
  it('reads 100k bare fences as 50k empty blocks', () => {
    const blocks = scanFencedBlocks('```\n'.repeat(100_000));
    expect(blocks).toHaveLength(50_000);
    expect(blocks.at(-1)).toMatchObject({ content: '', closed: true, startLine: 99_999, endLine: 100_000 });
  });

  it('reads fences nested in 20k block quotes', () => {
    const quotes = '>'.repeat(20_000);
    expectSameAsMicromark(`${quotes} \`\`\`ts file=a\n${quotes} x\n${quotes} \`\`\`\n`.repeat(3));
  });

  it('reads a fence at the bottom of 100 nested list items, each line indented all the way', () => {
    const depth = 100;
    const items = Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}- a\n`).join('');
    const inner = '  '.repeat(depth);
    const markdown = `${items}${inner}\`\`\`ts file=a.ts\n${inner} \tx\n${inner}\n${inner}\`\`\`\n`;
    expect(scanFencedBlocks(markdown)).toMatchObject([{ content: ' \tx\n\n', closed: true }]);
    expectSameAsMicromark(markdown);
  });

  it('keeps blank lines cheap under 10k nested list items', () => {
    const blocks = scanFencedBlocks(`${'- '.repeat(10_000)}\`\`\`\n${'\n'.repeat(50_000)}`);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]?.content).toBe('\n'.repeat(50_000));
  });

  it('throws ParseDeadlineExceeded once the deadline has passed', () => {
    expect(() => scanFencedBlocks('a\n'.repeat(10_000), performance.now() - 1)).toThrow(
      ParseDeadlineExceeded,
    );
  });
});

describe('ParseFencesOptions.parser', () => {
  it('gives the same scan with either parser, including ambiguous nesting', () => {
    const markdown = '```md file=a.md\n```ts\nx\n```\n\n```ts file=b.ts\ny\n```\n';
    expect(scanFences(markdown, { parser: 'scanner' })).toEqual(
      scanFences(markdown, { parser: 'micromark' }),
    );
    expect(scanFences(markdown, { parser: 'scanner' }).blocks.map((block) => block.verdict.valid)).toEqual([
      false,
      true,
    ]);
  });

  it('reports a passed time limit as timedOut with the scanner too', () => {
    expect(scanFences('```ts file=a\n'.repeat(20_000), { parser: 'scanner', timeLimitMs: -1 })).toEqual({
      blocks: [],
      parsed: true,
      timedOut: true,
    });
  });
});
