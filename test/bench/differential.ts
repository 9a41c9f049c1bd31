/**
 * The differential part of `npm run bench`: the generated corpus of test/fence/differential-corpus.test.ts at
 * scale (1,000,000 documents unless `--differential N` says otherwise), every parser of DIFFERENTIAL_PARSERS
 * compared block by block with the first, in one child process per core, and the count of disagreements
 * printed per parser with the first minimal documents. Disagreements the test pins (known-disagreements.ts)
 * count here too: they are real.
 * Run alone with `npx tsx test/bench/differential.ts --differential 100000`.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import {
  commonmarkParser,
  DIFFERENTIAL_PARSERS,
  type FullParser,
} from '../fence/corpus/differential-parsers.js';
import { findDisagreements, minimizeDocument } from '../fence/corpus/find-disagreements.js';
import { generateDocument } from '../fence/corpus/generate-document.js';

const DEFAULT_DOCUMENTS = 1_000_000;
/** Disagreements shown (minimized) per parser; the rest are counted. */
const SHOWN = 5;
/** Longer than any fence the generator writes, so that minimal documents show as they are. */
const FENCE = '~'.repeat(12);

/** The document count of `--differential N` in `argv`, or 1,000,000. */
export function differentialDocuments(argv: readonly string[] = process.argv): number {
  const index = argv.indexOf('--differential');
  const value = index === -1 ? undefined : Number(argv[index + 1]);
  if (value === undefined) return DEFAULT_DOCUMENTS;
  if (!Number.isInteger(value) || value < 0)
    throw new Error('--differential takes a document count, e.g. 100000');
  return value;
}

const SCANNER = 'scanner';
const REFERENCE = commonmarkParser.name;

/**
 * How the scanner's disagreements with micromark divide: where commonmark.js departs from micromark too and the
 * scanner gives what commonmark.js gives, micromark is the one off the spec (D66); every other disagreement is
 * the scanner's, and must be 0.
 */
interface ScannerVerdicts {
  /** The scanner and commonmark.js both differ from micromark, and agree with each other. */
  readonly micromarkDeparts: number;
  /** The scanner differs from micromark, and commonmark.js does not back it. */
  readonly scannerWrong: number;
}

/** What one shard (every n-th seed) of the corpus found. */
interface ShardResult {
  readonly counts: Record<string, number>;
  readonly scanner: ScannerVerdicts;
  readonly shown: readonly { readonly seed: number; readonly parser: string; readonly minimal: string }[];
  readonly bytes: number;
}

/** Compares the documents of seeds 1..documents that are `shard` modulo `shards`. */
function compareShard(documents: number, shard: number, shards: number): ShardResult {
  const counts: Record<string, number> = {};
  const scanner = { micromarkDeparts: 0, scannerWrong: 0 };
  const scannerParser = DIFFERENTIAL_PARSERS.find(
    (parser): parser is FullParser => parser.name === SCANNER && 'full' in parser,
  );
  const shown: { seed: number; parser: string; minimal: string }[] = [];
  let bytes = 0;
  let compared = 0;
  const t0 = performance.now();
  for (let seed = shard + 1; seed <= documents; seed += shards) {
    const markdown = generateDocument(seed);
    bytes += markdown.length;
    const disagreements = findDisagreements(markdown, DIFFERENTIAL_PARSERS);
    const parsers = new Set(disagreements.map((disagreement) => disagreement.parser));
    if (scannerParser !== undefined && parsers.has(SCANNER)) {
      const backed =
        parsers.has(REFERENCE) && findDisagreements(markdown, [scannerParser, commonmarkParser]).length === 0;
      if (backed) scanner.micromarkDeparts += 1;
      else scanner.scannerWrong += 1;
    }
    for (const disagreement of disagreements) {
      const count = (counts[disagreement.parser] ?? 0) + 1;
      counts[disagreement.parser] = count;
      if (count <= SHOWN) {
        const minimal = minimizeDocument(markdown, DIFFERENTIAL_PARSERS, disagreement.parser);
        shown.push({ seed, parser: disagreement.parser, minimal });
      }
    }
    compared += 1;
    if (compared % 50_000 === 0) {
      const seconds = (performance.now() - t0) / 1000;
      process.stderr.write(`differential shard ${shard}: ${compared} documents in ${seconds.toFixed(0)} s\n`);
    }
  }
  return { counts, scanner, bytes, shown };
}

/** Runs the shards in child processes, one per core, since the documents are independent. */
async function compareInChildren(documents: number, shards: number): Promise<ShardResult[]> {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const script = fileURLToPath(import.meta.url);
  return Promise.all(
    Array.from(
      { length: shards },
      (_, shard) =>
        new Promise<ShardResult>((resolve, reject) => {
          const args = [
            '--import',
            tsx,
            script,
            '--differential',
            String(documents),
            '--shard',
            `${shard}/${shards}`,
          ];
          const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.setEncoding('utf8');
          child.stdout.on('data', (chunk: string) => (out += chunk));
          child.on('error', reject);
          child.on('close', (code) => {
            if (code === 0) resolve(JSON.parse(out) as ShardResult);
            else reject(new Error(`differential shard ${shard} exited with ${String(code)}`));
          });
        }),
    ),
  );
}

/** Compares `documents` generated documents (seeds 1..documents) and returns the markdown section. */
export async function differentialSection(documents = differentialDocuments()): Promise<string> {
  const [baseline, ...others] = DIFFERENTIAL_PARSERS;
  const shards = documents >= 10_000 ? availableParallelism() : 1;
  const t0 = performance.now();
  const results = shards === 1 ? [compareShard(documents, 0, 1)] : await compareInChildren(documents, shards);
  const seconds = (performance.now() - t0) / 1000;
  const bytes = results.reduce((sum, result) => sum + result.bytes, 0);
  const count = (parser: string): number =>
    results.reduce((sum, result) => sum + (result.counts[parser] ?? 0), 0);
  const shown = others.flatMap((parser) =>
    results
      .flatMap((result) => result.shown)
      .filter((entry) => entry.parser === parser.name)
      .sort((a, b) => a.seed - b.seed)
      .slice(0, SHOWN)
      .map((entry) => `seed ${entry.seed}, ${entry.parser}: ${JSON.stringify(entry.minimal)}`),
  );
  const rows = others.map(
    (parser) => `| ${parser.name} | ${baseline.name} | ${String(count(parser.name))} |`,
  );
  const verdict = (key: keyof ScannerVerdicts): number =>
    results.reduce((sum, result) => sum + result.scanner[key], 0);
  const scannerRows = [
    `| micromark departs from CommonMark (D66): the scanner gives what commonmark.js gives | ${String(verdict('micromarkDeparts'))} |`,
    `| **the scanner's own disagreements** (commonmark.js does not back it; must be 0) | **${String(verdict('scannerWrong'))}** |`,
  ];
  for (const row of [...rows, ...scannerRows]) console.log(row);
  const per100k = documents === 0 ? 0 : (seconds / documents) * 100_000;
  return `## Differential corpus: ${documents.toLocaleString('en-US')} generated documents

Seeds 1..${documents} of test/fence/corpus/generate-document.ts (container-heavy, 50 B to 4 KB, ${(bytes / 1e6).toFixed(0)} MB in
all), each compared block by block (every RawFence field between full parsers; info string and content with
commonmark.js) in ${seconds.toFixed(0)} s on ${shards} processes, ${per100k.toFixed(0)} s per 100,000. \`npm run bench -- --differential N\`
sets the count.

| parser | compared with | documents that disagree |
|---|---|---:|
${rows.join('\n')}

The scanner's disagreements with micromark, judged by commonmark.js:

| documents where the scanner differs from micromark | count |
|---|---:|
${scannerRows.join('\n')}

${shown.length === 0 ? 'No disagreement.' : `First minimal documents of each disagreement (JSON strings):\n\n${FENCE}\n${shown.join('\n')}\n${FENCE}`}
`;
}

/** `--shard k/n` in argv: this process is one shard of a parent's run and prints its result as JSON. */
function shardOf(argv: readonly string[]): readonly [number, number] | undefined {
  const index = argv.indexOf('--shard');
  if (index === -1) return undefined;
  const [shard, shards] = (argv[index + 1] ?? '').split('/').map(Number);
  return shard === undefined || shards === undefined ? undefined : [shard, shards];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const shard = shardOf(process.argv);
  if (shard === undefined) console.log(await differentialSection());
  else process.stdout.write(JSON.stringify(compareShard(differentialDocuments(), ...shard)));
}
