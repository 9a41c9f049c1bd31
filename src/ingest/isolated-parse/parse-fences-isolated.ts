import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { getHeapStatistics } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { mayHoldCandidate, parseFences } from '../../fence/index.js';
import type { FenceParser } from '../../project/index.js';
import type { FenceScan } from '../../fence/index.js';
import { describeError } from '../../project/index.js';
import type { FenceParseAnswer, FenceParseRequest } from './fence-parse-message.js';

/** Options for {@link parseFencesIsolated}. */
export interface IsolatedParseOptions {
  /** Return every fenced code block, not only candidates. */
  readonly all?: boolean;
  /** Terminate the parse when it runs longer than this many milliseconds: the scan is then `timedOut`. */
  readonly timeLimitMs?: number;
  /** The block parser (`ingest.parser`); by default (or undefined) the scanner. */
  readonly parser?: FenceParser | undefined;
}

/** Internal options of an {@link IsolatedFenceParser}, for tests: the worker's entry, its flags, where warnings go. */
export interface IsolatedFenceParserOptions {
  /** The worker's entry module; by default fence-worker.js beside this module (its .ts, through tsx, under the sources). */
  readonly workerEntry?: URL;
  /** Where the one fail-open warning goes; by default stderr. */
  readonly warn?: (message: string) => void;
  /** How long a starting worker may take to load before the parser falls back to parsing in-process. */
  readonly startTimeoutMs?: number;
  /** The worker's heap limit in MiB; by default the process's own (v8 heap_size_limit). */
  readonly maxHeapMb?: number;
}

interface ParseJob {
  readonly request: FenceParseRequest;
  readonly timeLimitMs: number | undefined;
  readonly resolve: (scan: FenceScan) => void;
  readonly reject: (error: Error) => void;
}

// A worker loads in about 30 ms from dist/ and a few hundred under tsx; a slow 2-core machine under load gets room.
const DEFAULT_START_TIMEOUT_MS = 20_000;

/**
 * Parses documents in one reused worker thread, one at a time in arrival order, and terminates the worker when
 * a document overruns its deadline (the next document starts a fresh worker); falls back to the in-process
 * parse, once said, when no worker can be started.
 */
export class IsolatedFenceParser {
  private worker: Worker | undefined;
  private ready = false;
  private startTimer: NodeJS.Timeout | undefined;
  private current: { readonly job: ParseJob; readonly timer: NodeJS.Timeout | undefined } | undefined;
  private readonly queue: ParseJob[] = [];
  private nextId = 0;
  private fallbackReason: string | undefined;
  private started = 0;
  private readonly entry: URL;
  private readonly warn: (message: string) => void;
  private readonly startTimeoutMs: number;
  private readonly maxHeapMb: number;

  constructor(options: IsolatedFenceParserOptions = {}) {
    const fromSources = import.meta.url.endsWith('.ts');
    this.entry =
      options.workerEntry ??
      new URL(fromSources ? './fence-worker.ts' : './fence-worker.js', import.meta.url);
    this.warn = options.warn ?? ((message) => process.stderr.write(`artifact-ingest: ${message}\n`));
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.maxHeapMb = options.maxHeapMb ?? Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20);
  }

  /** Workers started so far (a terminated one is replaced by the next document's). */
  get workersStarted(): number {
    return this.started;
  }

  /** Why documents are parsed in-process, once no worker could be started; undefined while workers serve. */
  get fallback(): string | undefined {
    return this.fallbackReason;
  }

  /** The document's scan, as `parseFences` gives it, or `timedOut` with no blocks when it overran `timeLimitMs`. */
  parse(text: string, options: IsolatedParseOptions = {}): Promise<FenceScan> {
    const all = options.all === true;
    // A proof of "no candidate" is a linear scan without a block parser: it cannot stall, so it stays in-process.
    if (!mayHoldCandidate(text, all)) return Promise.resolve({ blocks: [], parsed: false });
    // No time at all: what the in-process parse answers after its first step, without starting anything.
    if (options.timeLimitMs !== undefined && options.timeLimitMs <= 0)
      return Promise.resolve({ blocks: [], parsed: true, timedOut: true });
    return new Promise<FenceScan>((resolve, reject) => {
      this.queue.push({
        request: { id: this.nextId++, text, all, parser: options.parser },
        timeLimitMs: options.timeLimitMs,
        resolve,
        reject,
      });
      this.pump();
    });
  }

  /** Terminates the worker; documents still queued are parsed by a fresh worker when another is asked for. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.discardWorker();
    if (worker !== undefined) await worker.terminate();
  }

  private pump(): void {
    if (this.current !== undefined) return;
    if (this.fallbackReason !== undefined) {
      for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift()) parseInProcess(job);
      return;
    }
    if (this.queue.length === 0) {
      // Idle: the worker must never keep the process alive.
      this.worker?.unref();
      return;
    }
    const worker = this.worker ?? this.startWorker();
    if (worker === undefined) return;
    // Busy: a pending parse keeps the process alive like any other pending I/O.
    worker.ref();
    if (!this.ready) return;
    const job = this.queue.shift();
    if (job === undefined) return;
    // The deadline runs from when the worker takes the document: a document queued behind another is not charged.
    const timer =
      job.timeLimitMs === undefined || !Number.isFinite(job.timeLimitMs)
        ? undefined
        : setTimeout(() => {
            this.expire(job);
          }, job.timeLimitMs);
    this.current = { job, timer };
    worker.postMessage(job.request);
  }

  private startWorker(): Worker | undefined {
    let worker: Worker;
    try {
      // A heap limit of its own: without one, a document that exhausts the heap aborts the whole process;
      // with one, only the worker ends (ERR_WORKER_OUT_OF_MEMORY) and only its document is lost.
      const resourceLimits = { maxOldGenerationSizeMb: this.maxHeapMb };
      worker = this.entry.pathname.endsWith('.ts')
        ? new Worker(tsxBootstrap(this.entry), { eval: true, resourceLimits })
        : new Worker(this.entry, { execArgv: workerExecArgv(process.execArgv), resourceLimits });
    } catch (error) {
      this.fallBack(`cannot start the fence parse worker (${describeError(error)})`);
      return undefined;
    }
    this.worker = worker;
    this.ready = false;
    worker.on('message', (answer: FenceParseAnswer) => {
      if (worker === this.worker) this.answer(answer);
    });
    worker.on('error', (error) => {
      if (worker === this.worker) this.lost(`failed: ${describeError(error)}`);
    });
    worker.on('exit', (code) => {
      if (worker === this.worker) this.lost(`exited with code ${String(code)}`);
    });
    this.startTimer = setTimeout(() => {
      if (worker === this.worker && !this.ready)
        this.fallBack(`the fence parse worker did not start within ${String(this.startTimeoutMs)} ms`);
    }, this.startTimeoutMs);
    this.startTimer.unref();
    return worker;
  }

  private answer(answer: FenceParseAnswer): void {
    if ('ready' in answer) {
      this.ready = true;
      this.started += 1;
      clearTimeout(this.startTimer);
      this.pump();
      return;
    }
    const current = this.current;
    if (current?.job.request.id !== answer.id) return;
    clearTimeout(current.timer);
    this.current = undefined;
    if ('scan' in answer) current.job.resolve(answer.scan);
    else current.job.reject(new Error(`parsing failed in the fence parse worker: ${answer.error}`));
    this.pump();
  }

  /** The worker died: before it loaded, no worker can be had (fail open); later, only its document is lost. */
  private lost(what: string): void {
    if (!this.ready) {
      this.fallBack(`cannot start the fence parse worker (it ${what})`);
      return;
    }
    const current = this.current;
    this.current = undefined;
    this.discardWorker();
    if (current !== undefined) {
      clearTimeout(current.timer);
      current.job.reject(new Error(`the fence parse worker ${what} while parsing a document`));
    }
    this.pump();
  }

  private expire(job: ParseJob): void {
    if (this.current?.job !== job) return;
    this.current = undefined;
    // Terminating is the only way to stop a parse that does not return; the next document starts a new worker.
    this.discardWorker();
    job.resolve({ blocks: [], parsed: true, timedOut: true });
    this.pump();
  }

  private fallBack(reason: string): void {
    this.fallbackReason = reason;
    this.discardWorker();
    this.warn(
      `${reason}; parsing documents in-process, where max_parse_ms is checked only between parse steps`,
    );
    this.pump();
  }

  private discardWorker(): void {
    const worker = this.worker;
    clearTimeout(this.startTimer);
    this.worker = undefined;
    this.ready = false;
    if (worker === undefined) return;
    worker.removeAllListeners();
    // Late errors of a discarded worker are nobody's concern; terminate() settles once its thread is gone.
    worker.on('error', () => undefined);
    worker.terminate().catch(() => undefined);
  }
}

function parseInProcess(job: ParseJob): void {
  try {
    job.resolve(
      parseFences(job.request.text, {
        ...(job.request.all ? { all: true } : {}),
        ...(job.request.parser === undefined ? {} : { parser: job.request.parser }),
        ...(job.timeLimitMs === undefined ? {} : { timeLimitMs: job.timeLimitMs }),
      }),
    );
  } catch (error) {
    job.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * The process's Node flags that a worker accepts: `--input-type` (for `node -e`) makes a worker refuse to
 * start, so it is left out; the rest (memory limits, conditions) carry over as they would by default.
 */
function workerExecArgv(execArgv: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < execArgv.length; index++) {
    const arg = execArgv[index] ?? '';
    if (arg === '--input-type') index++;
    else if (!arg.startsWith('--input-type=')) kept.push(arg);
  }
  return kept;
}

/** The part of tsx's package.json that names its ESM API. */
interface TsxManifest {
  readonly exports: Readonly<Record<string, { readonly import?: { readonly default?: string } } | undefined>>;
}

/**
 * A worker script that registers tsx's loader, then imports the TypeScript entry: only tests, which run the
 * sources, need it (Node 20 does not apply a worker's `--import tsx` to its entry); dist/ never does.
 */
function tsxBootstrap(entry: URL): string {
  let api = 'tsx/esm/api';
  try {
    // The ESM build that tsx's own exports name for `import` (require.resolve would give its CommonJS one).
    const manifestPath = createRequire(import.meta.url).resolve('tsx/package.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as TsxManifest;
    const esm = manifest.exports['./esm/api']?.import?.default;
    if (esm !== undefined) api = new URL(esm, pathToFileURL(manifestPath)).href;
  } catch {
    // Unresolvable: the worker then fails to start and the parser falls back, saying so.
  }
  return `import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}

let shared: IsolatedFenceParser | undefined;

/**
 * Parses a document as `parseFences` does, in a worker thread that is terminated when the parse overruns
 * `timeLimitMs` (the scan is then `timedOut`), so the caller's event loop never stalls on hostile markdown.
 */
export function parseFencesIsolated(text: string, options: IsolatedParseOptions = {}): Promise<FenceScan> {
  shared ??= new IsolatedFenceParser();
  return shared.parse(text, options);
}
