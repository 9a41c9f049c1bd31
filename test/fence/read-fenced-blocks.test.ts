import { describe, expect, it } from 'vitest';
import { readFencedBlocks } from '../../src/fence/read-fenced-blocks.js';

/** The (content, closed) pairs of every fenced block in a document. */
function contents(markdown: string): [string, boolean][] {
  return readFencedBlocks(markdown).map((block) => [block.content, block.closed]);
}

describe('readFencedBlocks content', () => {
  it.each<[string, string, [string, boolean][]]>([
    ['LF', '```ts\na\nb\n```\n', [['a\nb\n', true]]],
    ['CRLF kept', '```ts\r\na\r\n\r\nb\r\n```\r\n', [['a\r\n\r\nb\r\n', true]]],
    ['CR only', '```ts\ra\rb\r```\r', [['a\rb\r', true]]],
    ['each line keeps its own ending', '```\na\r\nb\rc\n```', [['a\r\nb\rc\n', true]]],
    ['CR and LF from two lines stay two endings', '> ```\r> x = 1\r> \n> ```', [['x = 1\r\n', true]]],
    ['leading BOM', '\uFEFF```ts\na\n```\n', [['a\n', true]]],
    ['BOM inside content kept', '```\n\uFEFFa\n```\n', [['\uFEFFa\n', true]]],
    ['empty block', '```ts\n```\n', [['', true]]],
    ['only a blank line', '```\n\n```\n', [['\n', true]]],
    ['whitespace line at the root kept', '```\n   \n```\n', [['   \n', true]]],
    ['NUL becomes U+FFFD', '```\na\u0000b\n```\n', [['a\uFFFDb\n', true]]],
    ['tabs kept', '```\n\tx\n```\n', [['\tx\n', true]]],
    ['fence at EOF without newline', '```\na\n```', [['a\n', true]]],
    ['closing fence may be longer', '```\na\n`````\n', [['a\n', true]]],
    ['closing fence indented up to 3 spaces', '```\na\n   ```\n', [['a\n', true]]],
    ['4-space indented line is content', '```\na\n    ```\n', [['a\n    ```\n', false]]],
    ['closing fence with info is content', '```\na\n```ts\n```\n', [['a\n```ts\n', true]]],
    ['shorter fence is content', '````\na\n```\n````\n', [['a\n```\n', true]]],
    ['four backticks hold ```', '````md\n```bash\nnpm i\n```\n````\n', [['```bash\nnpm i\n```\n', true]]],
    ['tilde hides backticks', '~~~\n```ts file=a.ts\nx\n```\n~~~\n', [['```ts file=a.ts\nx\n```\n', true]]],
    [
      'indented opening removes up to 2 spaces',
      '  ```\n  a\n    b\n c\nd\n  ```\n',
      [['a\n  b\nc\nd\n', true]],
    ],
    ['indented opening removes part of a tab', '  ```\n\tx\n  ```\n', [['  x\n', true]]],
    ['unclosed at end of document', '```ts\na\nb\n', [['a\nb\n', false]]],
    ['unclosed at end without newline', '```ts\na', [['a', false]]],
    ['unclosed, opening line only', '```ts\n', [['', false]]],
    ['blockquote prefixes removed', '> ```ts\n> a\n>  b\n>\n> ```\n', [['a\n b\n\n', true]]],
    ['nested blockquotes', '> > ```\n> > a\n> > ```\n', [['a\n', true]]],
    ['unclosed at blockquote end', '> ```\n> a\n\nb\n', [['a\n', false]]],
    [
      'not continued by a lazy line',
      '> ```\nb\n```\n',
      [
        ['', false],
        ['', false],
      ],
    ],
    ['list item indentation removed', '- ```ts\n  a\n   b\n  ```\n', [['a\n b\n', true]]],
    ['ordered list item', '10. ```\n    a\n    ```\n', [['a\n', true]]],
    ['nested list items', '- a\n  - ```\n    x\n    ```\n', [['x\n', true]]],
    ['list inside blockquote', '> - ```\n>   x\n>   ```\n', [['x\n', true]]],
    ['list item takes all of a blank line', '- ```\n  a\n      \n  b\n  ```\n', [['a\n\nb\n', true]]],
    ['blockquote leaves a blank line its spaces', '> ```\n>     \n> ```\n', [['    \n', true]]],
    ['unclosed at list item end', '- ```\n  a\nb\n', [['a\n', false]]],
    ['html block hides a fence', '<div>\n```ts file=a.ts\nx\n```\n</div>\n', []],
    ['html comment hides a fence', '<!--\n```ts file=a.ts\n-->\n', []],
    ['indented code hides a fence', '    ```ts file=a.ts\n    x\n    ```\n', []],
    ['inline code is no fence', 'use ```ts file=a.ts``` inline\n', []],
    ['two backticks are no fence', '``ts file=a.ts\nx\n``\n', []],
    ['backtick in a backtick info string', '```ts `x` file=a\nx\n```\n', [['', false]]],
    ['fence interrupts a paragraph', 'text\n```\na\n```\n', [['a\n', true]]],
    ['list item after indented code', '    code\n1. \n   ```\n   x\n   ```\n', [['x\n', true]]],
    ['list from 2 after indented code', '    code\n\n2. ```\n   x\n   ```\n', [['x\n', true]]],
    ['definition paragraph takes no setext underline', '[a]: /u\n-\n2) ```\nx\n', []],
    ['nested list item after a paragraph', 'para\n- 2. ```\n     x\n     ```\n', [['x\n', true]]],
  ])('%s', (_name, markdown, expected) => {
    expect(contents(markdown)).toEqual(expected);
  });
});

describe('readFencedBlocks fences and info strings', () => {
  it.each<[string, string, '`' | '~', number, string, string]>([
    ['backticks', '```ts file=a.ts\n```\n', '`', 3, 'ts file=a.ts', 'ts file=a.ts'],
    ['tildes', '~~~~ ts\n~~~~\n', '~', 4, 'ts', 'ts'],
    ['surrounding spaces and tabs trimmed', '```  \tts file=a \t \n```\n', '`', 3, 'ts file=a', 'ts file=a'],
    ['escapes decoded', '``` ts file\\=a\\_b.ts\n```\n', '`', 3, 'ts file\\=a\\_b.ts', 'ts file=a_b.ts'],
    [
      'references decoded',
      '``` ts file&#61;&quot;a&quot;\n```\n',
      '`',
      3,
      'ts file&#61;&quot;a&quot;',
      'ts file="a"',
    ],
    [
      'unknown references kept',
      '``` ts &bogus; file=a\n```\n',
      '`',
      3,
      'ts &bogus; file=a',
      'ts &bogus; file=a',
    ],
    ['no info', '`````\n`````\n', '`', 5, '', ''],
    ['tilde info may hold backticks', '~~~ a`b\n~~~\n', '~', 3, 'a`b', 'a`b'],
    ['container prefix not in info', '> ```ts file=a\n> ```\n', '`', 3, 'ts file=a', 'ts file=a'],
  ])('%s', (_name, markdown, fenceChar, fenceLength, rawInfo, info) => {
    const [block] = readFencedBlocks(markdown);
    expect(block).toMatchObject({ fenceChar, fenceLength, rawInfo, info });
  });
});

describe('readFencedBlocks lines', () => {
  it.each<[string, string, [number, number][]]>([
    ['closed', 'a\n\n```\nx\n```\n', [[3, 5]]],
    ['empty closed', '```\n```\n', [[1, 2]]],
    ['unclosed at end with newline', '```\nx\ny\n', [[1, 3]]],
    ['unclosed at end without newline', '```\nx\ny', [[1, 3]]],
    ['unclosed, trailing blank line inside', '```\nx\n\n', [[1, 3]]],
    ['unclosed, opening line only', '```\n', [[1, 1]]],
    [
      'unclosed at blockquote end',
      '> ```\n> x\n\n```\n',
      [
        [1, 2],
        [4, 4],
      ],
    ],
    [
      'CRLF lines',
      '```\r\nx\r\n```\r\n```\r\n',
      [
        [1, 3],
        [4, 4],
      ],
    ],
    ['CR lines', 'a\r```\rx\r```\r', [[2, 4]]],
    ['BOM does not shift lines', '\uFEFF```\nx\n```\n', [[1, 3]]],
    [
      'several blocks',
      '```\n```\n\n~~~\nx\n~~~\n',
      [
        [1, 2],
        [4, 6],
      ],
    ],
  ])('%s', (_name, markdown, expected) => {
    expect(readFencedBlocks(markdown).map((block) => [block.startLine, block.endLine])).toEqual(expected);
  });
});

describe('readFencedBlocks end of document', () => {
  it.each<[string, string, boolean[]]>([
    ['closed block', '```\nx\n```\n', [false]],
    ['unclosed at the end', '```\nx\n', [true]],
    ['unclosed, no final newline', '```\nx', [true]],
    ['unclosed in a blockquote at the end', '> ```\n> x\n', [true]],
    ['unclosed in a list item at the end', '- ```\n  x\n\n', [true]],
    ['ended by its blockquote', '> ```\n> x\n\ny\n', [false]],
    ['ended by its list item', '- ```\n  x\ny\n', [false]],
    ['only the last of two', '> ```\n\n```\n', [false, true]],
  ])('%s', (_name, markdown, expected) => {
    expect(readFencedBlocks(markdown).map((block) => block.reachesEnd)).toEqual(expected);
  });
});

describe('readFencedBlocks on hostile input', () => {
  it('reads 100k bare fences as 50k empty blocks', () => {
    const blocks = readFencedBlocks('```\n'.repeat(100_000));
    expect(blocks).toHaveLength(50_000);
    expect(blocks.at(-1)).toMatchObject({ content: '', closed: true, startLine: 99_999, endLine: 100_000 });
  });

  it('reads fences nested in 20k block quotes, line after line, in linear time', () => {
    const quotes = '>'.repeat(20_000);
    const blocks = readFencedBlocks(`${quotes} \`\`\`ts file=a\n${quotes} x\n${quotes} \`\`\`\n`.repeat(5));
    expect(blocks.map((block) => [block.info, block.content, block.closed])).toEqual(
      Array.from({ length: 5 }, () => ['ts file=a', 'x\n', true]),
    );
  });

  it('reads a 5 MB line of content', () => {
    const [block] = readFencedBlocks(`\`\`\`ts file=a\n${'x'.repeat(5_000_000)}\n\`\`\`\n`);
    expect(block?.content.length).toBe(5_000_001);
  });
});
