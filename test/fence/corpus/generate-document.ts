/**
 * A seeded generator of container-heavy markdown documents for the differential tests and `npm run bench`:
 * nested block quotes and list items (lazy lines, empty items, odd indents, tabs), fenced code of both kinds
 * and every length 3..8 (nested, unclosed, badly closed), indented code, HTML blocks of all seven kinds,
 * setext and thematic lines, link reference definitions, CRLF / CR / LF and sometimes a BOM.
 */

/** A pseudo-random source; mulberry32, so that a seed alone reproduces a document on any machine. */
export interface Random {
  /** A float in [0, 1). */
  readonly next: () => number;
}

/** A mulberry32 generator started at `seed`. */
export function createRandom(seed: number): Random {
  let state = seed >>> 0;
  return {
    next: () => {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
  };
}

/** Where to cut a text of `length` characters into chunks of 1 to `maxChunk` characters, drawn from `seed`. */
export function randomCuts(length: number, seed: number, maxChunk: number): number[] {
  const random = createRandom(seed);
  const cuts: number[] = [];
  for (
    let at = 1 + Math.floor(random.next() * maxChunk);
    at < length;
    at += 1 + Math.floor(random.next() * maxChunk)
  )
    cuts.push(at);
  return cuts;
}

const MIN_BYTES = 50;
const MAX_BYTES = 4096;

type Lines = string[];

/** Generation state of one document. */
interface Context {
  readonly random: Random;
  /** How many container levels the block being generated is inside. */
  depth: number;
}

function chance(context: Context, probability: number): boolean {
  return context.random.next() < probability;
}

function integer(context: Context, min: number, max: number): number {
  return min + Math.floor(context.random.next() * (max - min + 1));
}

function pick<T>(context: Context, values: readonly T[]): T {
  return values[Math.floor(context.random.next() * values.length)] as T;
}

const INFO_STRINGS = [
  '',
  'ts',
  'ts file=src/a.ts',
  'md file=README.md',
  'markdown file=docs/x.md',
  'py file="my file.py"',
  '  js  path=a.js ',
  'c++\tfile=x.cc',
  'ts file\\=a.ts',
  'ts file&#61;a.ts',
  'f&ouml;o &amp; b\\*r',
  'bash `inline`',
  ' ts file=a.ts ~~~',
  '\t',
];

const TEXT_LINES = [
  'a paragraph with = and `code`',
  'continued *text* and <span>inline</span>',
  '    four spaces in a paragraph',
  '\ttab in a paragraph',
  'ü ✓ 漢字 😀',
  '`` not a fence ``',
  '``',
  '~~ strike ~~',
  'a line\\',
  'x  ',
];

/** Lines that look like other constructs, used inside code and HTML to test where blocks end. */
const TRICKY_LINES = [
  '',
  ' ',
  '\t',
  '  \t ',
  '    ',
  'x = 1',
  '  two spaces',
  '\ttab',
  '  \tmixed',
  '```',
  '~~~',
  '````',
  '`````',
  '~~~~~~~~',
  '```bash',
  '```ts file=inner.ts',
  '~~~ md file=inner.md',
  '   ```',
  '    ```',
  '   ~~~~',
  '```  ',
  '``` x',
  '> quoted',
  '>',
  '- item',
  '-',
  '1. one',
  '2)',
  '<div>',
  '</div>',
  '-->',
  '?>',
  ']]>',
  '</script>',
  '# heading',
  '---',
  '===',
  '***',
  '[ref]: /url',
];

function fenceInfo(context: Context, char: '`' | '~'): string {
  const info = pick(context, INFO_STRINGS);
  // A backtick in the info string of a backtick fence makes the line no fence at all (CommonMark 4.5).
  return char === '`' && chance(context, 0.7) ? info.replaceAll('`', '') : info;
}

/** A fenced code block, possibly holding a shorter fence (the nested-fence case) or markdown blocks. */
function fencedBlock(context: Context): Lines {
  const char = chance(context, 0.7) ? '`' : '~';
  const length = integer(context, 3, 8);
  const fence = char.repeat(length);
  const indent = pick(context, ['', '', '', ' ', '  ', '   ', '\t', ' \t']);
  const lines: Lines = [`${indent}${fence}${fenceInfo(context, char)}`];
  const inner = integer(context, 0, 5);
  for (let i = 0; i < inner; i++) {
    if (length > 3 && chance(context, 0.15)) {
      // A shorter fence inside a longer one, as a markdown file= block holding code blocks would.
      const innerFence = char.repeat(integer(context, 3, length - 1));
      lines.push(`${innerFence}${fenceInfo(context, char)}`, pick(context, TRICKY_LINES), innerFence);
    } else if (chance(context, 0.1)) {
      lines.push(...leafBlock(context));
    } else {
      lines.push(pick(context, chance(context, 0.5) ? TRICKY_LINES : TEXT_LINES));
    }
  }
  const other = char === '`' ? '~' : '`';
  const closing = pick(context, [
    fence,
    fence,
    fence,
    `${fence}${char}`,
    `${fence}${char.repeat(3)}`,
    char.repeat(length - 1),
    other.repeat(length),
    `   ${fence}`,
    `    ${fence}`,
    `\t${fence}`,
    `${fence}   `,
    `${fence}\t`,
    `${fence} x`,
    undefined,
  ]);
  if (closing !== undefined) lines.push(closing);
  return lines;
}

function indentedCode(context: Context): Lines {
  const lines: Lines = [];
  const count = integer(context, 1, 4);
  for (let i = 0; i < count; i++) {
    const indent = pick(context, ['    ', '     ', '\t', '  \t', '      ']);
    lines.push(chance(context, 0.15) ? '' : `${indent}${pick(context, TRICKY_LINES)}`);
  }
  return lines;
}

/** Start and end lines of the seven kinds of HTML block (CommonMark 4.6), kind 1 first; kinds 6 and 7 end at a blank line. */
const HTML_BLOCKS: readonly (readonly [starts: readonly string[], ends: readonly string[]])[] = [
  [
    ['<script>', '<pre class="x">', '<style', '<textarea>'],
    ['</script>', '</pre>', 'x </style> y', '</textarea>'],
  ],
  [['<!-- comment'], ['-->']],
  [['<?php'], ['?>']],
  [['<!DOCTYPE html>', '<!X'], ['>']],
  [['<![CDATA['], [']]>']],
  [['<div>', '<table>', '</p>', '<details open>', '  <DIV', '<section/>'], ['']],
  [['<custom-tag attr="x">', '</a>', '<span>', '<x-y/>'], ['']],
];

/** An HTML block of any of the seven kinds, with fence-like lines inside and, mostly, its end. */
function htmlBlock(context: Context): Lines {
  const kind = integer(context, 1, HTML_BLOCKS.length);
  const [starts, ends] = HTML_BLOCKS[kind - 1] ?? [[''], ['']];
  const lines: Lines = [pick(context, starts)];
  const inner = integer(context, 0, 4);
  for (let i = 0; i < inner; i++) {
    // Kinds 6 and 7 end at a blank line, so their inner lines are mostly not blank.
    const line = pick(context, TRICKY_LINES);
    lines.push(kind >= 6 && line.trim() === '' && chance(context, 0.7) ? '```' : line);
  }
  if (chance(context, 0.8)) lines.push(pick(context, ends));
  return lines;
}

function paragraph(context: Context): Lines {
  const lines: Lines = [pick(context, TEXT_LINES.slice(0, 2).concat(['text', 'Heading', '[ref]']))];
  const more = integer(context, 0, 3);
  for (let i = 0; i < more; i++) lines.push(pick(context, TEXT_LINES));
  if (chance(context, 0.25))
    lines.push(pick(context, ['===', '---', '  ===  ', '- - -', '***', '   ---', '    ---']));
  return lines;
}

function linkReferenceDefinition(context: Context): Lines {
  return pick(context, [
    ['[foo]: /url "title"'],
    ['[foo]:', '/url', '"multi', 'line title"'],
    ['[foo]: /url', '==='],
    ['[foo]: /url', '```'],
    ['[bar]:', '```'],
    ['[foo]: <a b> "t" x'],
    ['   [Foo bar]:', '   <my url>', "   'title'"],
  ]);
}

function singleLine(context: Context): Lines {
  return [
    pick(context, [
      '',
      '',
      '',
      '  ',
      '\t',
      '***',
      '- - -',
      '___',
      ' * * *',
      '# heading',
      '### heading ###',
      '#nope',
      '>',
      '-',
      '1.',
      '* ',
    ]),
  ];
}

function leafBlock(context: Context): Lines {
  const roll = context.random.next();
  if (roll < 0.4) return fencedBlock(context);
  if (roll < 0.5) return indentedCode(context);
  if (roll < 0.62) return htmlBlock(context);
  if (roll < 0.8) return paragraph(context);
  if (roll < 0.86) return linkReferenceDefinition(context);
  return singleLine(context);
}

/** One or more blocks, which a container wraps. */
function blocks(context: Context): Lines {
  const lines: Lines = [];
  // Deep containers hold fewer blocks, so that nesting grows deep rather than wide.
  const count = integer(context, 1, context.depth > 3 ? 2 : 3);
  for (let i = 0; i < count; i++) {
    if (i > 0 && chance(context, 0.5)) lines.push(pick(context, ['', '', ' ', '\t']));
    lines.push(...block(context));
  }
  return lines;
}

function block(context: Context): Lines {
  // Deeper containers are rarer, so that most documents still hold leaves, yet depth 10 happens.
  if (context.depth < 10 && chance(context, context.depth === 0 ? 0.65 : 0.55 - context.depth * 0.04)) {
    context.depth += 1;
    const wrapped = chance(context, 0.45) ? blockQuote(context) : list(context);
    context.depth -= 1;
    return wrapped;
  }
  return leafBlock(context);
}

function blockQuote(context: Context): Lines {
  const inner = blocks(context);
  const marker = pick(context, ['> ', '> ', '>', '>\t', ' > ', '   > ', '>  ']);
  const lazyChance = pick(context, [0, 0, 0.2, 0.6]);
  return inner.map((line, index) => {
    if (index > 0 && line !== '' && chance(context, lazyChance)) return line;
    return `${marker}${line}`;
  });
}

/** A list of one to three items of one marker kind (sometimes a different one, which starts a new list). */
function list(context: Context): Lines {
  const ordered = chance(context, 0.4);
  const bullet = pick(context, ['-', '*', '+']);
  const delimiter = pick(context, ['.', ')']);
  let number = pick(context, [1, 1, 2, 0, 10, 123456789, 1234567890]);
  const lines: Lines = [];
  const items = integer(context, 1, 3);
  for (let i = 0; i < items; i++) {
    if (i > 0 && chance(context, 0.4)) lines.push(pick(context, ['', ' ']));
    const marker = ordered
      ? `${String(number)}${chance(context, 0.05) ? pick(context, ['.', ')']) : delimiter}`
      : chance(context, 0.05)
        ? pick(context, ['-', '*', '+'])
        : bullet;
    number += 1;
    lines.push(...listItem(context, marker));
  }
  return lines;
}

function listItem(context: Context, marker: string): Lines {
  const before = pick(context, ['', '', '', ' ', '  ', '   ']);
  const empty = chance(context, 0.1);
  const inner = empty && chance(context, 0.3) ? [] : blocks(context);
  const spacing = pick(context, [' ', ' ', ' ', '  ', '   ', '    ', '     ', '\t', ' \t']);
  const width = before.length + marker.length + (spacing.includes('\t') ? 2 : Math.min(spacing.length, 4));
  const continuation = pick(context, [
    ' '.repeat(width),
    ' '.repeat(width),
    '\t',
    ' '.repeat(width + 1),
    ' '.repeat(Math.max(0, width - 1)),
  ]);
  const lazyChance = pick(context, [0, 0, 0.2, 0.5]);
  const lines: Lines = [];
  if (empty) {
    // An item that starts with a blank line (CommonMark 5.2), its content on the following lines.
    lines.push(`${before}${marker}${pick(context, ['', ' ', '  '])}`);
    for (const line of inner) lines.push(line === '' ? '' : `${continuation}${line}`);
    return lines;
  }
  inner.forEach((line, index) => {
    if (index === 0) lines.push(`${before}${marker}${spacing}${line}`);
    else if (line === '' || (line.trim() !== '' && chance(context, lazyChance))) lines.push(line);
    else lines.push(`${continuation}${line}`);
  });
  if (inner.length === 0) lines.push(`${before}${marker}`);
  return lines;
}

/** Joins lines with one ending style, or mixed ones, as a generated document would have them. */
function joinLines(context: Context, lines: Lines): string {
  const style = pick(context, ['\n', '\n', '\n', '\n', '\n', '\n', '\r\n', '\r\n', '\r', 'mixed']);
  let text = '';
  lines.forEach((line, index) => {
    if (index > 0) text += style === 'mixed' ? pick(context, ['\n', '\r\n', '\r']) : style;
    text += line;
  });
  if (chance(context, 0.85)) text += style === 'mixed' ? pick(context, ['\n', '\r\n', '\r']) : style;
  return text;
}

/**
 * The document of one seed: between 50 B and 4 KB (log-uniform, so most are small), top-level blocks
 * separated by blank lines or not, with one line ending style (sometimes mixed) and sometimes a BOM.
 */
export function generateDocument(seed: number): string {
  const context: Context = { random: createRandom(seed), depth: 0 };
  const target = Math.round(MIN_BYTES * Math.pow(MAX_BYTES / MIN_BYTES, context.random.next()));
  const lines: Lines = [];
  let length = 0;
  while (length < target) {
    const next = block(context);
    const separated = lines.length > 0 && chance(context, 0.6);
    const size = next.reduce((sum, line) => sum + line.length + 1, separated ? 1 : 0);
    // A block that overshoots the target by half is dropped: the document ends, or, under 50 B, takes another.
    if (length + size > Math.min(MAX_BYTES, target * 1.5)) {
      if (length > MIN_BYTES) break;
      continue;
    }
    if (separated) lines.push('');
    lines.push(...next);
    length += size;
  }
  const bom = chance(context, 0.05) ? '\uFEFF' : '';
  return bom + joinLines(context, lines);
}
