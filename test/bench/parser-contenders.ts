/**
 * The parser-contenders part of `npm run bench`: `parseFences` beside commonmark.js, micromark, marked and
 * markdown-it on a typical document, 1 MB, 10 MB and hostile inputs, interleaved in one process, as MB/s and
 * as a ratio to commonmark.js's parse; t(10 MB)/t(1 MB); and the peak memory of a 100 MB document, measured in
 * a child process. A contender that runs past its cap on an input is stopped and skipped with a note. Run alone
 * with `npx tsx test/bench/parser-contenders.ts`.
 */
import { spawnSync } from 'node:child_process';
import { rmSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Parser } from 'commonmark';
import { micromark } from 'micromark';
import { parseFences } from '../../src/fence/index.js';
import { typicalDocument } from './typical-document.js';

type Parse = (markdown: string) => unknown;

interface Contender {
  readonly name: string;
  /** The parse function, or a sentence saying why it cannot run here. */
  readonly load: () => Promise<Parse | string>;
}

/** Imports a package that may not be installed, without type-checking ever needing it. */
async function optional(specifier: string): Promise<unknown> {
  try {
    return (await import(specifier)) as unknown;
  } catch {
    return undefined;
  }
}

const REFERENCE = 'commonmark.js parse';

/** The contenders, in table order; the issue-12 scanner is one more line here. */
export const CONTENDERS: readonly Contender[] = [
  {
    name: 'parseFences (scanner)',
    load: () => Promise.resolve((text) => parseFences(text, { parser: 'scanner' })),
  },
  {
    name: 'parseFences (micromark)',
    load: () => Promise.resolve((text) => parseFences(text, { parser: 'micromark' })),
  },
  {
    name: REFERENCE,
    load: () => {
      const parser = new Parser();
      return Promise.resolve((text) => parser.parse(text));
    },
  },
  { name: 'micromark()', load: () => Promise.resolve((text) => micromark(text)) },
  {
    name: 'marked.lexer',
    load: async () => {
      const marked = (await optional('marked')) as { lexer?: Parse } | undefined;
      const lexer = marked?.lexer;
      return lexer === undefined ? 'marked is not installed' : (text) => lexer(text);
    },
  },
  {
    name: 'markdown-it parse',
    load: async () => {
      const module = (await optional('markdown-it')) as
        { default: new () => { parse: (text: string, env: object) => unknown } } | undefined;
      if (module === undefined) return 'markdown-it is not installed';
      const markdownIt = new module.default();
      return (text) => markdownIt.parse(text, {});
    },
  },
];

/** One candidate block, so that `parseFences` parses a hostile input instead of skipping it in its pre-check. */
const CANDIDATE = '```ts file=a.ts\nx\n```\n';
const MB = 1_000_000;

/** Lines made by `line(i)` until the text holds `bytes`. */
function linesUpTo(bytes: number, line: (index: number) => string): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < bytes; index++) {
    const next = line(index);
    lines.push(next);
    length += next.length;
  }
  return lines.join('');
}

interface Input {
  readonly name: string;
  readonly make: () => string;
  /** Whether each contender runs once in a child process first, stopped at the cap (all but small typical text). */
  readonly probed: boolean;
}

/** The inputs, in table order: typical documents at three sizes, then the hostile ones. */
export const INPUTS: readonly Input[] = [
  { name: 'typical agent document (20 KB)', make: () => typicalDocument(20_000), probed: false },
  { name: '1 MB document', make: () => typicalDocument(MB), probed: true },
  { name: '10 MB document', make: () => typicalDocument(10 * MB), probed: true },
  {
    name: 'hostile: nested block quotes, depth 1-200 (1 MB)',
    make: () => linesUpTo(MB, (i) => `${'>'.repeat(1 + (i % 200))} line ${i}\n`) + CANDIDATE,
    probed: true,
  },
  {
    name: 'hostile: 250,000 bare fence lines (1 MB)',
    make: () => '```\n'.repeat(250_000) + CANDIDATE,
    probed: true,
  },
  {
    name: 'hostile: 3 lines of 10,000 `- ` markers',
    make: () => `${'- '.repeat(10_000)}x\n`.repeat(3) + CANDIDATE,
    probed: true,
  },
  {
    name: 'hostile: nested lists, depth 1-100 (1 MB)',
    make: () => linesUpTo(MB, (i) => `${'  '.repeat(i % 100)}- item ${i}\n`) + CANDIDATE,
    probed: true,
  },
  {
    name: 'hostile: one 1 MB line of backticks',
    make: () => `${'`'.repeat(MB)}\n${CANDIDATE}`,
    probed: true,
  },
];

/** Seconds one call may take in its probe before the contender is skipped on that input. */
const CAP_SECONDS = 30;
/** A probe of this many seconds or more is the figure itself (one call in a fresh process). */
const SINGLE_CALL_SECONDS = 3;
const WARM_UP_MS = 300;
const MEMORY_BYTES = 100 * MB;
const MEMORY_CAP_SECONDS = 240;

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Runs this file in a child process with `args`, stopped after `capSeconds`: its stdout, or why it has none. */
function child(
  args: readonly string[],
  capSeconds: number,
  nodeFlags: readonly string[] = [],
): { readonly out: string } | { readonly failed: string } {
  const tsx = createRequire(import.meta.url).resolve('tsx');
  const script = fileURLToPath(import.meta.url);
  const result = spawnSync(process.execPath, [...nodeFlags, '--import', tsx, script, ...args], {
    encoding: 'utf8',
    timeout: capSeconds * 1000,
    maxBuffer: 1024 * 1024,
  });
  if (result.status === 0) return { out: result.stdout.trim() };
  if (result.signal === 'SIGTERM') return { failed: `over ${capSeconds} s, stopped` };
  const outOfMemory = result.stderr.includes('heap out of memory');
  return { failed: outOfMemory ? 'out of memory' : `exited with ${String(result.status ?? result.signal)}` };
}

/** Seconds of one call of each contender on `text`, each in a child process stopped after CAP_SECONDS. */
function probe(names: readonly string[], text: string): (number | string)[] {
  const file = path.join(tmpdir(), `ai-contender-${process.pid}.md`);
  writeFileSync(file, text);
  try {
    return names.map((name) => {
      const result = child(['--once', name, file], CAP_SECONDS);
      return 'out' in result ? Number(result.out) : result.failed;
    });
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Seconds per call of each function, interleaved (A, B, C, A, B, C ...) so that all run under the same heap,
 * JIT and load: a warm-up of at least 3 calls and WARM_UP_MS each, then 5 rounds of a batch of about 50 ms
 * each; the median batch.
 */
function measureInterleaved(fns: readonly Parse[], text: string): number[] {
  const warmCalls = fns.map(() => 0);
  const warmMs = fns.map(() => 0);
  while (fns.some((_, i) => (warmCalls[i] ?? 0) < 3 || (warmMs[i] ?? 0) < WARM_UP_MS)) {
    fns.forEach((fn, i) => {
      if ((warmCalls[i] ?? 0) >= 3 && (warmMs[i] ?? 0) >= WARM_UP_MS) return;
      const t0 = performance.now();
      fn(text);
      warmMs[i] = (warmMs[i] ?? 0) + performance.now() - t0;
      warmCalls[i] = (warmCalls[i] ?? 0) + 1;
    });
  }
  const batch = fns.map((_, i) => Math.max(1, Math.round((50 * (warmCalls[i] ?? 1)) / (warmMs[i] ?? 1))));
  const times: number[][] = fns.map(() => []);
  for (let round = 0; round < 5; round++) {
    fns.forEach((fn, i) => {
      const size = batch[i] ?? 1;
      const t0 = performance.now();
      for (let call = 0; call < size; call++) fn(text);
      times[i]?.push((performance.now() - t0) / size / 1000);
    });
  }
  return times.map((samples) => median(samples));
}

/** A contender's figure on one input: seconds per call, and how it was taken, or why there is none. */
type Figure =
  { readonly seconds: number; readonly how: 'interleaved' | 'one call' } | { readonly skipped: string };

async function loadContenders(): Promise<{ name: string; parse: Parse | string }[]> {
  return Promise.all(CONTENDERS.map(async ({ name, load }) => ({ name, parse: await load() })));
}

/** Figures of every contender on one input. */
function figuresFor(
  contenders: readonly { name: string; parse: Parse | string }[],
  text: string,
  probed: boolean,
): Figure[] {
  const figures: (Figure | undefined)[] = contenders.map(({ parse }) =>
    typeof parse === 'string' ? { skipped: parse } : undefined,
  );
  if (probed) {
    const runnable = contenders.filter((_, i) => figures[i] === undefined);
    const probes = probe(
      runnable.map(({ name }) => name),
      text,
    );
    runnable.forEach(({ name }, j) => {
      const i = contenders.findIndex((contender) => contender.name === name);
      const seconds = probes[j];
      if (seconds === undefined || typeof seconds === 'string')
        figures[i] = { skipped: seconds ?? 'unmeasured' };
      else if (seconds >= SINGLE_CALL_SECONDS) figures[i] = { seconds, how: 'one call' };
    });
  }
  const pending = contenders.flatMap(({ parse }, i) =>
    figures[i] === undefined && typeof parse !== 'string' ? [{ i, parse }] : [],
  );
  const seconds = measureInterleaved(
    pending.map(({ parse }) => parse),
    text,
  );
  pending.forEach(({ i }, j) => (figures[i] = { seconds: seconds[j] ?? Number.NaN, how: 'interleaved' }));
  return figures.map((figure) => figure ?? { skipped: 'unmeasured' });
}

function cell(figure: Figure, reference: Figure | undefined, bytes: number): string {
  if ('skipped' in figure) return `— (${figure.skipped})`;
  const rate = `${fmt(bytes / MB / figure.seconds)}${figure.how === 'one call' ? '†' : ''}`;
  if (reference === undefined || 'skipped' in reference) return rate;
  return `${rate} (${fmt(reference.seconds / figure.seconds)}x)`;
}

/**
 * The memory child: plain Node on the build (dist/, as the CLI runs) or the package, loading only the parser
 * measured, so that the runtime under the document is what any host pays (about 60 MB here, 110 MB under tsx
 * with every contender loaded). Reads the document (one one-byte string: it is ASCII), lets the file's buffer
 * be collected and given back, then parses while a worker samples the process's RSS every millisecond (the
 * parse is one synchronous call: the main thread cannot sample itself). Prints before, peak and seconds.
 */
const MEMORY_CHILD = `
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
const [name, file] = process.argv.slice(1);
const fence = () => import(new URL('./dist/fence/index.js', \`file://\${process.cwd()}/\`).href);
const loaders = {
  'parseFences (scanner)': async () => { const { parseFences } = await fence(); return (t) => parseFences(t, { parser: 'scanner' }); },
  'parseFences (micromark)': async () => { const { parseFences } = await fence(); return (t) => parseFences(t, { parser: 'micromark' }); },
  'commonmark.js parse': async () => { const { Parser } = await import('commonmark'); const parser = new Parser(); return (t) => parser.parse(t); },
};
const parse = await loaders[name]();
const text = readFileSync(file, 'latin1');
globalThis.gc();
await new Promise((resolve) => setTimeout(resolve, 500));
globalThis.gc();
const shared = new Int32Array(new SharedArrayBuffer(8));
const sampler = new Worker(\`
  const { workerData: shared, parentPort } = require('node:worker_threads');
  parentPort.postMessage('ready');
  while (Atomics.load(shared, 0) === 0) {
    const kib = Math.ceil(process.memoryUsage.rss() / 1024);
    if (kib > Atomics.load(shared, 1)) Atomics.store(shared, 1, kib);
    Atomics.wait(shared, 0, 0, 1);
  }\`, { eval: true, workerData: shared, execArgv: [] });
await new Promise((resolve) => sampler.once('message', resolve));
const before = process.memoryUsage.rss();
const t0 = performance.now();
parse(text);
const seconds = (performance.now() - t0) / 1000;
const after = process.memoryUsage.rss();
Atomics.store(shared, 0, 1);
Atomics.notify(shared, 0);
await new Promise((resolve) => sampler.once('exit', resolve));
const peak = Math.max(Atomics.load(shared, 1) * 1024, after);
process.stdout.write(JSON.stringify({ before, peak, seconds }) + '\\n');
`;

/** The contenders the memory child can load. */
const MEMORY_CONTENDERS: readonly string[] = ['parseFences (scanner)', 'parseFences (micromark)', REFERENCE];

/** Peak RSS of one contender parsing the typical document of MEMORY_BYTES in `file`, in a child process. */
function peakMemory(name: string, file: string): string {
  const result = spawnSync(
    process.execPath,
    ['--expose-gc', '--input-type=module', '-e', MEMORY_CHILD, name, file],
    {
      cwd: fileURLToPath(new URL('../../', import.meta.url)),
      encoding: 'utf8',
      timeout: MEMORY_CAP_SECONDS * 1000,
      maxBuffer: 1024 * 1024,
    },
  );
  if (result.status !== 0) {
    const why =
      result.signal === 'SIGTERM'
        ? `over ${String(MEMORY_CAP_SECONDS)} s, stopped`
        : result.stderr.includes('heap out of memory')
          ? 'out of memory'
          : `exited with ${String(result.status ?? result.signal)}`;
    return `| ${name} | — | — | — (${why}) |`;
  }
  const { before, peak, seconds } = JSON.parse(result.stdout) as {
    before: number;
    peak: number;
    seconds: number;
  };
  return `| ${name} | ${fmt(before / MB)} | ${fmt(peak / MB)} | ${fmt(peak / MEMORY_BYTES)}x (parse alone ${fmt((peak - before) / MEMORY_BYTES)}x, ${fmt(seconds)} s) |`;
}

const PAIRED_ROUNDS = 9;
const PAIRED_SMALL_CALLS = 10;
const PAIRED_MAX_SECONDS = 2;

/**
 * t(10 MB)/t(1 MB) of each contender from back-to-back pairs: in each round, 1 MB PAIRED_SMALL_CALLS times,
 * then 10 MB once; the median of the rounds' ratios (a slow moment of the machine then hits one ratio, not a row).
 */
function pairedGrowth(
  contenders: readonly { name: string; parse: Parse | string }[],
  seconds10MB: readonly (number | undefined)[],
): string[] {
  const small = typicalDocument(MB);
  const large = typicalDocument(10 * MB);
  return contenders.map(({ parse }, i) => {
    const known = seconds10MB[i];
    if (typeof parse === 'string' || known === undefined || known > PAIRED_MAX_SECONDS) return '—';
    parse(small);
    parse(large);
    const ratios: number[] = [];
    for (let round = 0; round < PAIRED_ROUNDS; round++) {
      let t0 = performance.now();
      for (let call = 0; call < PAIRED_SMALL_CALLS; call++) parse(small);
      const perSmall = (performance.now() - t0) / PAIRED_SMALL_CALLS;
      t0 = performance.now();
      parse(large);
      ratios.push((performance.now() - t0) / perSmall);
    }
    return fmt(median(ratios));
  });
}

/** Measures every contender on every input and returns the markdown section (rows printed as they come). */
export async function parserContendersSection(): Promise<string> {
  const contenders = await loadContenders();
  const referenceIndex = contenders.findIndex(({ name }) => name === REFERENCE);
  const rows: string[] = [];
  const seconds1MB: (number | undefined)[] = [];
  const seconds10MB: (number | undefined)[] = [];
  for (const input of INPUTS) {
    const text = input.make();
    const figures = figuresFor(contenders, text, input.probed);
    const reference = figures[referenceIndex];
    const row = `| ${input.name} | ${fmt(text.length / MB)} | ${figures.map((figure) => cell(figure, reference, text.length)).join(' | ')} |`;
    rows.push(row);
    console.log(row);
    const perCall = figures.map((figure) => ('seconds' in figure ? figure.seconds : undefined));
    if (input.name === '1 MB document') seconds1MB.push(...perCall);
    if (input.name === '10 MB document') seconds10MB.push(...perCall);
  }
  const growth = contenders.map((_, i) => {
    const small = seconds1MB[i];
    const large = seconds10MB[i];
    return small === undefined || large === undefined ? '—' : fmt(large / small);
  });
  const growthRow = `| t(10 MB) / t(1 MB) | | ${growth.join(' | ')} |`;
  console.log(growthRow);
  const pairedRow = `| t(10 MB) / t(1 MB), paired | | ${pairedGrowth(contenders, seconds10MB).join(' | ')} |`;
  console.log(pairedRow);
  const memoryFile = path.join(tmpdir(), `ai-contender-memory-${process.pid}.md`);
  writeFileSync(memoryFile, typicalDocument(MEMORY_BYTES));
  let memoryRows: string[];
  try {
    memoryRows = MEMORY_CONTENDERS.map((name) => {
      const row = peakMemory(name, memoryFile);
      console.log(row);
      return row;
    });
  } finally {
    rmSync(memoryFile, { force: true });
  }
  const names = contenders.map(({ name }) => name);
  return `## Parser contenders: MB/s and speed relative to commonmark.js

Each cell: MB/s, and in brackets the contender's speed as a multiple of commonmark.js's \`Parser.parse\` on
the same input (above 1x is faster). Contenders run interleaved in one process (a warm-up of 0.3 s and at
least 3 calls each, then the median of 5 rounds of ~50 ms batches). Every input but the 20 KB one is first
run once per contender in a child process stopped after ${CAP_SECONDS} s; a contender that is stopped is
skipped on that input, and one whose single call took ${SINGLE_CALL_SECONDS} s or more is reported from that call (†). Hostile inputs end in one
\`file=\` candidate so that \`parseFences\` parses them instead of skipping them in its pre-check.

| input | MB | ${names.join(' | ')} |
|---|---:|${names.map(() => '---:').join('|')}|
${rows.join('\n')}
${growthRow}
${pairedRow}

The first growth row divides the two rows above; the paired row times 1 MB (${String(PAIRED_SMALL_CALLS)} calls) and then 10 MB (one call)
back to back, ${String(PAIRED_ROUNDS)} times, and gives the median of the ${String(PAIRED_ROUNDS)} ratios, so both sizes see the same load (contenders
whose 10 MB call takes over ${String(PAIRED_MAX_SECONDS)} s are left out). The target is at most 11.

### Peak memory of a ${MEMORY_BYTES / MB} MB typical document

Measured in a plain Node child process on the build (dist/, as the CLI runs) that loads only the parser
measured, reads the document from a file (one ${MEMORY_BYTES / MB} MB string) and collects garbage: "before" is its RSS then
(runtime and document), the peak the highest RSS a sampling thread saw during the parse (every millisecond)
or after it. The target is a peak under 3x the document's size.

| parser | RSS before (MB) | peak RSS (MB) | peak / document size |
|---|---:|---:|---:|
${memoryRows.join('\n')}
`;
}

/** The child-process mode `--once <contender> <file>`: prints the seconds of one call. */
async function runChild(args: readonly string[]): Promise<void> {
  const [mode, name, argument] = args;
  const contender = CONTENDERS.find((candidate) => candidate.name === name);
  const parse = await contender?.load();
  if (typeof parse !== 'function') throw new Error(`no runnable contender ${String(name)}`);
  if (mode !== '--once') throw new Error(`unknown mode ${String(mode)}`);
  const text = readFileSync(argument ?? '', 'utf8');
  const t0 = performance.now();
  parse(text);
  process.stdout.write(`${String((performance.now() - t0) / 1000)}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--once') await runChild(args);
  else console.log(await parserContendersSection());
}
