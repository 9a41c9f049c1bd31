/**
 * The isolated-parse part of `npm run bench`: what parsing in a worker thread costs beside the in-process
 * parse (worker start, per-document overhead on a typical document and a tiny one), and how close to its
 * deadline the hostile 16 KB document is stopped, beside the in-process parse under the same limit. Uses the
 * build (dist/), as the CLI and the published package do. Run alone with `npx tsx test/bench/isolated-parse.ts`.
 */
import { fileURLToPath } from 'node:url';
import type * as FenceApi from '../../src/fence/index.js';
import type * as IngestApi from '../../src/ingest/index.js';
import { hostileNestedLists } from '../helpers/hostile-markdown.js';
import { typicalDocument } from './typical-document.js';

// The build, loaded at run time (npm run bench builds first), so that type-checking never needs dist/.
const { parseFences } = (await import(
  new URL('../../dist/fence/index.js', import.meta.url).href
)) as typeof FenceApi;
const { IsolatedFenceParser } = (await import(
  new URL('../../dist/ingest/index.js', import.meta.url).href
)) as typeof IngestApi;
type IsolatedFenceParser = IngestApi.IsolatedFenceParser;

const ROUNDS = 7;
const DEADLINE_MS = 500;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Milliseconds per document of the in-process and the isolated parse, interleaved in batches of `batch`. */
async function perDocument(
  parser: IsolatedFenceParser,
  text: string,
  batch: number,
): Promise<[number, number]> {
  for (let warm = 0; warm < batch; warm++) {
    parseFences(text);
    await parser.parse(text);
  }
  const inProcess: number[] = [];
  const isolated: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    let t0 = performance.now();
    for (let call = 0; call < batch; call++) parseFences(text);
    inProcess.push((performance.now() - t0) / batch);
    t0 = performance.now();
    for (let call = 0; call < batch; call++) await parser.parse(text);
    isolated.push((performance.now() - t0) / batch);
  }
  return [median(inProcess), median(isolated)];
}

/** The section of docs/benchmarks.md; `typical` is the bench's typical agent document. */
export async function isolatedParseSection(typical: string): Promise<string> {
  const tiny = '# Plan\n\n```ts file=src/a.ts\nexport const a = 1;\n```\n';
  console.log('isolated parse: worker start ...');
  const starts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const parser = new IsolatedFenceParser();
    const t0 = performance.now();
    await parser.parse(tiny);
    starts.push(performance.now() - t0);
    await parser.close();
  }
  const parser = new IsolatedFenceParser();
  console.log('isolated parse: per document ...');
  const [typicalIn, typicalIso] = await perDocument(parser, typical, 20);
  const [tinyIn, tinyIso] = await perDocument(parser, tiny, 200);
  console.log('isolated parse: hostile document ...');
  const hostile = hostileNestedLists();
  let t0 = performance.now();
  // micromark: the parser that stalls on it (the scanner, measured below, reads it in milliseconds).
  const stopped = await parser.parse(hostile, { timeLimitMs: DEADLINE_MS, parser: 'micromark' });
  const isolatedHostile = performance.now() - t0;
  t0 = performance.now();
  const next = await parser.parse(typical);
  const afterTermination = performance.now() - t0;
  await parser.close();
  t0 = performance.now();
  const inProcessScan = parseFences(hostile, { timeLimitMs: DEADLINE_MS, parser: 'micromark' });
  const inProcessHostile = performance.now() - t0;
  const scanner = new IsolatedFenceParser();
  await scanner.parse(tiny);
  t0 = performance.now();
  const scanned = await scanner.parse(hostile, { timeLimitMs: DEADLINE_MS });
  const scannerHostile = performance.now() - t0;
  await scanner.close();
  if (scanned.timedOut === true || scanned.blocks.length !== 1)
    throw new Error('the scanner did not read the hostile document within its deadline');
  if (stopped.timedOut !== true || inProcessScan.timedOut !== true || next.blocks.length === 0)
    throw new Error('the hostile document was not stopped, or the next document was not parsed');

  return `## Isolated parse: a worker thread stopped at the deadline

\`parseFencesIsolated\` (the ingest and the contract-block reader) beside the in-process \`parseFences\`, from
dist/. Median of ${String(ROUNDS)} interleaved rounds; the worker is started once and reused.

| measure | isolated ms | in-process ms | ratio |
|---|---:|---:|---:|
| worker start (a fresh parser's first tiny document) | ${fmt(median(starts))} | | |
| typical document, ${String(Math.round(typical.length / 1024))} KB, per document | ${fmt(typicalIso)} | ${fmt(typicalIn)} | ${fmt(typicalIso / typicalIn)}x |
| tiny document, ${String(tiny.length)} B, per document | ${fmt(tinyIso)} | ${fmt(tinyIn)} | ${fmt(tinyIso / tinyIn)}x |
| hostile 16 KB document (3 lines of 2,700 nested \`- \`), micromark, max_parse_ms ${String(DEADLINE_MS)}: elapsed | ${fmt(isolatedHostile)} | ${fmt(inProcessHostile)} | ${fmt(isolatedHostile / DEADLINE_MS)}x the deadline (in-process: ${fmt(inProcessHostile / DEADLINE_MS)}x) |
| the next typical document, on a replacement worker (start + parse) | ${fmt(afterTermination)} | | |
| the same hostile document with the scanner (the default): parsed, its block found | ${fmt(scannerHostile)} | | ${fmt(scannerHostile / DEADLINE_MS)}x the deadline |
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log(await isolatedParseSection(typicalDocument(20_000)));
}
