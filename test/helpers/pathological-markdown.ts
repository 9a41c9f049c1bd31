/**
 * Pathological markdown built to a size: every shape of the pathological suites of cmark
 * (test/pathological_tests.py), cmark-gfm and commonmark.js (test/test.js), written here from their
 * descriptions, and variations of the one shape that was slow in the block scanner (issue 23: blank lines in a
 * deeply nested list inside a block quote). The bench (test/bench/pathological-markdown.ts) times each at
 * 100 KB and 1 MB; the differential test (test/fence/pathological-shapes.test.ts) checks the blocks of each,
 * at a few KB, against micromark and commonmark.js.
 */

/** One shape of hostile markdown. */
export interface PathologicalShape {
  readonly name: string;
  /** Where the shape comes from: one of the three suites, or a variation of the slow family. */
  readonly source: 'cmark' | 'cmark-gfm' | 'commonmark.js' | 'variation';
  /** The shape at about `bytes` UTF-16 units (within one repeated unit; never less than one unit). */
  readonly make: (bytes: number) => string;
}

/** `unit` repeated until `head`, the units and `tail` hold about `bytes`. */
function repeatTo(bytes: number, unit: string, head = '', tail = ''): string {
  const count = Math.max(1, Math.floor((bytes - head.length - tail.length) / unit.length));
  return `${head}${unit.repeat(count)}${tail}`;
}

/** The largest count whose document, of `size(count)` units (growing with count), fits in `bytes`. */
function largestCount(bytes: number, size: (count: number) => number): number {
  let low = 1;
  let high = 2;
  while (size(high) <= bytes) high *= 2;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (size(middle) <= bytes) low = middle;
    else high = middle;
  }
  return low;
}

/** Lines made by `line(index)` until they hold `bytes`, after `head`. */
function linesTo(bytes: number, line: (index: number) => string, head = ''): string {
  const lines = [head];
  let length = head.length;
  for (let index = 0; length < bytes; index++) {
    const next = line(index);
    lines.push(next);
    length += next.length;
  }
  return lines.join('');
}

const cmark = (name: string, make: (bytes: number) => string): PathologicalShape => ({
  name,
  source: 'cmark',
  make,
});

/** The shapes of cmark's test/pathological_tests.py, each scaled by its repeat count. */
const CMARK_SHAPES: readonly PathologicalShape[] = [
  cmark('nested strong emph', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 14));
    return `${'*a **a '.repeat(count)}b${' a** a*'.repeat(count)}`;
  }),
  cmark('many emph closers with no openers', (bytes) => repeatTo(bytes, 'a_ ')),
  cmark('many emph openers with no closers', (bytes) => repeatTo(bytes, '_a ')),
  cmark('many link closers with no openers', (bytes) => repeatTo(bytes, 'a]')),
  cmark('many link openers with no closers', (bytes) => repeatTo(bytes, '[a')),
  cmark('mismatched openers and closers', (bytes) => repeatTo(bytes, '*a_ ')),
  cmark('openers then closers of the other kind (cmark #389)', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 8));
    return `${'*a '.repeat(count)}${'_a*_ '.repeat(count)}`;
  }),
  cmark('openers and closers multiple of 3', (bytes) => repeatTo(bytes, 'c* ', 'a**b')),
  cmark('link openers and emph closers', (bytes) => repeatTo(bytes, '[ a_')),
  cmark('pattern [ (]( repeated', (bytes) => repeatTo(bytes, '[ (](')),
  cmark('pattern ![[]() repeated', (bytes) => repeatTo(bytes, '![[]()')),
  cmark('hard link/emph case', (bytes) => repeatTo(bytes, '**x [a*b**c*](d)\n\n')),
  cmark('nested brackets', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 2));
    return `${'['.repeat(count)}a${']'.repeat(count)}`;
  }),
  cmark('nested block quotes', (bytes) => repeatTo(bytes, '> ', '', 'a')),
  cmark('deeply nested lists', (bytes) => {
    // Line x is 2x spaces and `* a`: the document grows with the square of its depth.
    const depth = largestCount(bytes, (count) => count * (count - 1) + 4 * count);
    return Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}* a\n`).join('');
  }),
  cmark('U+0000 in input', (bytes) => repeatTo(bytes, 'abc\u0000de\u0000\n')),
  cmark('backticks', (bytes) => {
    // Runs of 1, 2, 3 ... backticks, each after an `e`: also quadratic in the count.
    const runs = largestCount(bytes, (count) => count + (count * (count + 1)) / 2);
    return Array.from({ length: runs }, (_, run) => `e${'`'.repeat(run + 1)}`).join('');
  }),
  cmark('unclosed links A', (bytes) => repeatTo(bytes, '[a](<b')),
  cmark('unclosed links B', (bytes) => repeatTo(bytes, '[a](b')),
  cmark('unclosed <!--', (bytes) => repeatTo(bytes, '<!--', '</')),
  cmark('empty lines in deeply nested lists', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 3));
    return `${'- '.repeat(count)}x${'\n'.repeat(count)}`;
  }),
  cmark('empty lines in deeply nested lists in blockquote', (bytes) =>
    emptyLinesInQuotedNestedList(Math.max(1, Math.floor(bytes / 4))),
  ),
  cmark('emph in deep blockquote', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 3));
    return `${'>'.repeat(count)}${'a*'.repeat(count)}`;
  }),
  cmark('reference collisions', (bytes) => linesTo(bytes, (index) => `[x${index + 1}]: /url\n\n[x0]\n\n`)),
  cmark('many references', (bytes) => {
    const definitions = linesTo(bytes * 0.9, (index) => `[${index + 1}]: u\n`);
    return repeatTo(bytes, '[0] ', definitions);
  }),
  cmark('nested inlines', (bytes) => {
    const count = Math.max(1, Math.floor(bytes / 2));
    return `${'*'.repeat(count)}a${'*'.repeat(count)}`;
  }),
];

/** The shapes of cmark-gfm's suite that cmark's lacks (the rest are cmark's at twice the count). */
const CMARK_GFM_SHAPES: readonly PathologicalShape[] = [
  { name: 'tables', source: 'cmark-gfm', make: (bytes) => repeatTo(bytes, 'aaa\rbbb\n-\v\n') },
];

/** The block-relevant shapes of commonmark.js's pathological cases that neither cmark suite has. */
const COMMONMARK_JS_SHAPES: readonly PathologicalShape[] = [
  {
    name: 'alternate line endings',
    source: 'commonmark.js',
    make: (bytes) => repeatTo(bytes, '- a\n- b\r- c\r\n- d\n'),
  },
  {
    name: 'emph and underscores (#172)',
    source: 'commonmark.js',
    make: (bytes) => repeatTo(bytes, '*_* _ '),
  },
  { name: '[ then backslashes', source: 'commonmark.js', make: (bytes) => repeatTo(bytes, '\\', '[', '\n') },
  {
    name: 'backslashes in an unclosed link title',
    source: 'commonmark.js',
    make: (bytes) => repeatTo(bytes, '\\', '[test](\\url "', '\n'),
  },
];

/**
 * cmark's "empty lines in deeply nested lists in blockquote" with `depth` items: a block quote holding a list
 * `depth` items deep, then `depth` lines holding only the quote's `>`. 120 KB at the suite's 30,000.
 */
export function emptyLinesInQuotedNestedList(depth: number): string {
  return `> ${'- '.repeat(depth)}x\n${'>\n'.repeat(depth)}`;
}

/** How a variation nests its list: `depth` list items inside `quotes` block quotes. */
interface Nesting {
  /**
   * Items of the list, at most a tenth of the document's bytes (so that small documents stay small);
   * `proportional` makes the opening line half the document, as the suite does.
   */
  readonly depth: number | 'proportional';
  readonly quotes: number;
  /** The list marker of the item at each level. */
  readonly marker: (level: number) => string;
  /** Whether each item sits in a block quote of its own (`> - > - …`) rather than all quotes outside. */
  readonly alternate?: boolean;
  /** What follows the innermost marker on the opening line (by default `x`). */
  readonly innermost?: string;
}

const bullet = (): string => '- ';
const ordinal = (level: number): string => `${(level % 9) + 1}. `;

/** The items of a nesting in a document of about `bytes`. */
function depthOf(nesting: Nesting, bytes: number): number {
  const perItem = nesting.marker(0).length + (nesting.alternate === true ? 2 : 0);
  if (nesting.depth === 'proportional') return Math.max(1, Math.floor(bytes / 2 / perItem));
  return Math.max(1, Math.min(nesting.depth, Math.floor(bytes / 10)));
}

/** The opening line of a nesting `depth` items deep. */
function openingLine(nesting: Nesting, depth: number): string {
  const markers: string[] = [];
  for (let level = 0; level < depth; level++)
    markers.push(`${nesting.alternate === true ? '> ' : ''}${nesting.marker(level)}`);
  return `${'> '.repeat(nesting.quotes)}${markers.join('')}${nesting.innermost ?? 'x'}\n`;
}

/**
 * A nesting opened once, then `lines` repeated up to `bytes`; `lines` gets the quotes' `>` markers and the
 * depth.
 */
function variation(
  name: string,
  nesting: Nesting,
  lines: (quotes: string, depth: number) => string,
): PathologicalShape {
  return {
    name,
    source: 'variation',
    make: (bytes) => {
      const depth = depthOf(nesting, bytes);
      return repeatTo(bytes, lines('>'.repeat(nesting.quotes), depth), openingLine(nesting, depth));
    },
  };
}

/** Variations of the slow family: depth, quotes, markers, tabs, lazy lines, fences at depth, interleavings. */
const VARIATIONS: readonly PathologicalShape[] = [
  ...[10, 1_000, 10_000].flatMap((depth) =>
    [1, 50].map((quotes) =>
      variation(
        `list ${depth.toLocaleString('en')} deep in ${String(quotes)} quotes, then lines of their \`>\``,
        { depth, quotes, marker: bullet },
        (prefix) => `${prefix}\n`,
      ),
    ),
  ),
  variation(
    'ordered list half the document deep in a quote, then lines of `>`',
    { depth: 'proportional', quotes: 1, marker: ordinal },
    (prefix) => `${prefix}\n`,
  ),
  variation(
    'list half the document deep in 5 quotes, then lines of `> > > > >`',
    { depth: 'proportional', quotes: 5, marker: bullet },
    () => `${'> '.repeat(5)}\n`,
  ),
  variation(
    'list half the document deep in a quote, then lines of `>` and a tab',
    { depth: 'proportional', quotes: 1, marker: () => '*\t' },
    (prefix) => `${prefix}\t\n`,
  ),
  variation(
    'list half the document deep in a quote, then lines of `>` and spaces',
    { depth: 'proportional', quotes: 1, marker: () => '10) ' },
    (prefix) => `${prefix}      \n`,
  ),
  variation(
    'list half the document deep in a quote, then `>` lines and lazy lines',
    { depth: 'proportional', quotes: 1, marker: bullet },
    (prefix) => `${prefix}\nlazy\n`,
  ),
  variation(
    'list half the document deep in a quote, then quoted lazy lines',
    { depth: 'proportional', quotes: 1, marker: bullet },
    (prefix) => `${prefix} lazy\n`,
  ),
  variation(
    'fence opened half the document deep in a quote, then `>` lines',
    { depth: 'proportional', quotes: 1, marker: bullet, innermost: '```ts file=a.ts' },
    (prefix) => `${prefix}\n`,
  ),
  variation(
    'fence opened half the document deep, then empty lines',
    { depth: 'proportional', quotes: 0, marker: bullet, innermost: '```ts file=a.ts' },
    () => '\n',
  ),
  variation(
    'list half the document deep in a quote, then `>` lines and new items',
    { depth: 'proportional', quotes: 1, marker: bullet },
    (prefix) => `${prefix}\n${prefix} - y\n`,
  ),
  variation(
    'quotes and items alternating half the document deep, then `>` lines',
    { depth: 'proportional', quotes: 0, marker: bullet, alternate: true },
    () => '>\n',
  ),
  variation(
    'quotes and items alternating half the document deep, then `> >` lines',
    { depth: 'proportional', quotes: 0, marker: bullet, alternate: true },
    () => '> >\n',
  ),
  variation(
    'list 10,000 deep, then empty lines and lines indented into its innermost item',
    { depth: 10_000, quotes: 0, marker: bullet },
    (_, depth) => `\n${' '.repeat(2 * depth)}y\n`,
  ),
  variation(
    'list 10,000 deep, then empty lines and tab-indented lines',
    { depth: 10_000, quotes: 0, marker: bullet },
    (_, depth) => `\n${'\t'.repeat(Math.ceil(depth / 2))}y\n`,
  ),
  {
    name: 'lines of 1,000 nested block quotes',
    source: 'variation',
    make: (bytes) => {
      const depth = Math.max(1, Math.min(1_000, Math.floor(bytes / 10)));
      return linesTo(bytes, () => `${'> '.repeat(depth)}a\n`);
    },
  },
];

/** Every shape, the suites' first, in the order the bench reports them. */
export const PATHOLOGICAL_SHAPES: readonly PathologicalShape[] = [
  ...CMARK_SHAPES,
  ...CMARK_GFM_SHAPES,
  ...COMMONMARK_JS_SHAPES,
  ...VARIATIONS,
];
