/**
 * The pathological-markdown part of `npm run bench` (issue 23): every shape of
 * test/helpers/pathological-markdown.ts (the pathological suites of cmark, cmark-gfm and commonmark.js, and
 * variations of the slow family) through `parseFences` at 100 KB and 1 MB, t(1 MB)/t(100 KB) (about 10 when
 * linear), and MB/s at 1 MB beside two baselines measured in the same run: splitting the same input into lines,
 * and `parseFences` on the typical 1 MB document. Then cmark's two documents as its suite builds them, and the
 * slowest shapes through the worker the ingest parses in. Run alone with
 * `npx tsx test/bench/pathological-markdown.ts`.
 */
import { fileURLToPath } from 'node:url';
import { parseFences } from '../../src/fence/index.js';
import { IsolatedFenceParser } from '../../src/ingest/index.js';
import { emptyLinesInQuotedNestedList, PATHOLOGICAL_SHAPES } from '../helpers/pathological-markdown.js';
import { typicalDocument } from './typical-document.js';

/** One candidate block, so that `parseFences` parses each input instead of skipping it in its pre-check. */
const CANDIDATE = '\n```ts file=a.ts\nx\n```\n';
const SMALL = 100_000;
const LARGE = 1_000_000;
/** A shape whose 100 KB parse takes this long is superlinear beyond doubt: its 1 MB parse is not tried. */
const GIVE_UP_SECONDS = 1;
/** Time spent per measurement after the first call, in batches. */
const BUDGET_MS = 300;
/** Shapes timed through the isolated parse: the slowest at 1 MB in-process. */
const ISOLATED_SHAPES = 4;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/**
 * Seconds per call of `run`: one call when it takes GIVE_UP_SECONDS or more, else the median of 5 batches
 * that together take about BUDGET_MS, after that first call as a warm-up.
 */
function secondsPerCall(run: () => unknown): number {
  const t0 = performance.now();
  run();
  const first = (performance.now() - t0) / 1000;
  if (first >= GIVE_UP_SECONDS) return first;
  const batch = Math.max(1, Math.round(BUDGET_MS / 5 / 1000 / Math.max(first, 1e-6)));
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (let call = 0; call < batch; call++) run();
    times.push((performance.now() - start) / 1000 / batch);
  }
  return median(times);
}

const megabytesPerSecond = (text: string, seconds: number): number => text.length / 1e6 / seconds;

interface ShapeTiming {
  readonly name: string;
  readonly make: (bytes: number) => string;
  readonly largeSeconds: number | undefined;
  readonly row: string;
}

/** Times one shape at both sizes and makes its table row; `typicalRate` is MB/s on the typical document. */
function timeShape(name: string, make: (bytes: number) => string, typicalRate: number): ShapeTiming {
  const small = make(SMALL) + CANDIDATE;
  const smallSeconds = secondsPerCall(() => parseFences(small));
  const large = make(LARGE) + CANDIDATE;
  if (smallSeconds >= GIVE_UP_SECONDS) {
    const row = `| ${name} | ${fmt(smallSeconds * 1000)} | not run | | | | |`;
    return { name, make, largeSeconds: undefined, row };
  }
  const largeSeconds = secondsPerCall(() => parseFences(large));
  const splitSeconds = secondsPerCall(() => large.split('\n').length);
  const rate = megabytesPerSecond(large, largeSeconds);
  const row =
    `| ${name} | ${fmt(smallSeconds * 1000)} | ${fmt(largeSeconds * 1000)} | ` +
    `${fmt(largeSeconds / smallSeconds)} | ${fmt(rate)} | ${fmt(megabytesPerSecond(large, splitSeconds))} | ` +
    `${fmt(rate / typicalRate)} |`;
  return { name, make, largeSeconds, row };
}

/** Median milliseconds of 5 calls of `run`, after one call as a warm-up. */
async function medianMs(run: () => unknown): Promise<number> {
  await run();
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** One shape through the isolated parse at 100 KB and 1 MB, beside the in-process parse at 1 MB. */
async function isolatedRow(
  parser: IsolatedFenceParser,
  name: string,
  make: (bytes: number) => string,
): Promise<string> {
  const small = make(SMALL) + CANDIDATE;
  const large = make(LARGE) + CANDIDATE;
  const isolatedSmall = await medianMs(() => parser.parse(small));
  const isolatedLarge = await medianMs(() => parser.parse(large));
  const inProcess = await medianMs(() => parseFences(large));
  return (
    `| ${name} | ${fmt(isolatedSmall)} | ${fmt(isolatedLarge)} | ${fmt(isolatedLarge / isolatedSmall)} | ` +
    `${fmt(inProcess)} | ${fmt(isolatedLarge / inProcess)} |`
  );
}

/** Measures every shape and returns the markdown section (also printed row by row). */
export async function pathologicalMarkdownSection(): Promise<string> {
  const typical = typicalDocument(LARGE);
  const typicalRate = megabytesPerSecond(
    typical,
    secondsPerCall(() => parseFences(typical)),
  );
  console.log(`pathological markdown: parseFences on the typical 1 MB document: ${fmt(typicalRate)} MB/s`);
  // The typical document's own growth, for reading the others': 100 KB stays in a core's cache, 1 MB may not.
  const reference = timeShape('typical agent document (reference)', typicalDocument, typicalRate);
  console.log(reference.row);
  const timings: ShapeTiming[] = [];
  for (const shape of PATHOLOGICAL_SHAPES) {
    const timing = timeShape(`${shape.name} (${shape.source})`, shape.make, typicalRate);
    timings.push(timing);
    console.log(timing.row);
  }

  const suiteRows: string[] = [];
  for (const [name, depth] of [
    ['as the suite builds it: 30,000 items, 120 KB', 30_000],
    ['the same at 90 KB: 22,500 items', 22_500],
  ] as const) {
    const text = emptyLinesInQuotedNestedList(depth) + CANDIDATE;
    const seconds = secondsPerCall(() => parseFences(text));
    const row = `| empty lines in deeply nested lists in blockquote, ${name} | ${fmt(seconds * 1000)} | ${fmt(megabytesPerSecond(text, seconds))} |`;
    suiteRows.push(row);
    console.log(row);
  }

  const slowest = timings
    .filter((timing) => timing.largeSeconds !== undefined)
    .sort((a, b) => (b.largeSeconds ?? 0) - (a.largeSeconds ?? 0))
    .slice(0, ISOLATED_SHAPES);
  const parser = new IsolatedFenceParser();
  const isolatedRows: string[] = [];
  try {
    for (const timing of slowest) {
      const row = await isolatedRow(parser, timing.name, timing.make);
      isolatedRows.push(row);
      console.log(row);
    }
  } finally {
    await parser.close();
  }

  return `## Pathological markdown: linear time on every shape (issue 23)

Every shape of the pathological suites of cmark (test/pathological_tests.py), cmark-gfm and commonmark.js
(test/test.js), built here from their descriptions at about 100 KB and 1 MB, and variations of the one shape
that was slow (blank lines in a deeply nested list inside a block quote: depths 10 to 500,000, 1 to 50 quotes,
ordered and bullet markers, tabs, lazy lines, fences opened at depth, quotes and items alternating), each
with one candidate block at the end so that \`parseFences\` parses it. t(1 MB)/t(100 KB) is about 10 when
linear (the first row, the typical document, shows what this machine makes of linear). Baselines in the same run: splitting the same 1 MB input into lines, and \`parseFences\` on the typical
1 MB document (${fmt(typicalRate)} MB/s here); "x typical" is the shape's MB/s over that. A shape whose
100 KB parse takes ${GIVE_UP_SECONDS} s or more is superlinear beyond doubt, and its 1 MB parse is not run.
Fast calls: the median of 5 batches after a first call; calls of ${GIVE_UP_SECONDS} s or more: that one call.
The unit tests check the blocks of each shape against micromark and commonmark.js
(test/fence/pathological-shapes.test.ts).

| shape (source) | ms at 100 KB | ms at 1 MB | t(1 MB)/t(100 KB) | MB/s at 1 MB | line split MB/s | x typical |
|---|---:|---:|---:|---:|---:|---:|
${reference.row}
${timings.map((timing) => timing.row).join('\n')}

cmark's "empty lines in deeply nested lists in blockquote" as its suite builds it, and at 90 KB:

| document | ms | MB/s |
|---|---:|---:|
${suiteRows.join('\n')}

The ${String(ISOLATED_SHAPES)} slowest shapes at 1 MB through the isolated parse the ingest uses (a worker thread
with a deadline: the text copied in, the scan copied back) at 100 KB and 1 MB, beside the same 1 MB parse
in-process (medians of 5 after a warm-up):

| shape | isolated ms at 100 KB | isolated ms at 1 MB | t(1 MB)/t(100 KB) | in-process ms at 1 MB | isolated / in-process |
|---|---:|---:|---:|---:|---:|
${isolatedRows.join('\n')}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await pathologicalMarkdownSection();
