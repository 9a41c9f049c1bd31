import { getHeapStatistics } from 'node:v8';
import type { Worker } from 'node:worker_threads';
import { describeError } from '../../project/index.js';
import { startWorkerThread } from './start-worker-thread.js';
import type { DeadlineWorkerAnswer, DeadlineWorkerRequest } from './deadline-worker-message.js';

/** How a {@link DeadlineWorker} is set up: its entry, how it names itself, and its limits. */
export interface DeadlineWorkerOptions {
  /** The worker's entry module, which calls `serveDeadlineWorker` (see `workerEntryBeside`). */
  readonly entry: URL;
  /** What the worker is called in messages, such as `fence parse worker`. */
  readonly name: string;
  /** What one request is called in messages, such as `parsing a document`. */
  readonly task: string;
  /** What the user does instead once no worker can be started, ending the one warning. */
  readonly fallbackNote: string;
  /** Where the one fail-open warning goes; by default stderr. */
  readonly warn?: ((message: string) => void) | undefined;
  /** How long a starting worker may take to load before no worker is to be had. */
  readonly startTimeoutMs?: number | undefined;
  /** The worker's heap limit in MiB; by default the process's own (v8 heap_size_limit). */
  readonly maxHeapMb?: number | undefined;
  /** The limit of the worker's young generation in MiB; by default V8's, which grows to tens of MB. */
  readonly maxYoungHeapMb?: number | undefined;
  /**
   * Whether requests waiting for a worker that is still loading keep the process alive (by default they do: their
   * callers wait). False for work nobody waits on until the worker has loaded: a process that ends meanwhile is
   * not kept for it.
   */
  readonly holdWhileLoading?: boolean | undefined;
  /**
   * How many requests are sent to the worker before the first of them is answered, at most (by default 1). Above
   * 1 no request may have a deadline, and a worker lost fails every request sent or waiting: none runs out of
   * order on its replacement.
   */
  readonly maxInFlight?: number | undefined;
}

/**
 * What became of one request: its answer, its deadline passed (the worker was terminated), or no worker could
 * be started at all (the reason said once by the warning), so the caller does the work another way.
 */
export type DeadlineOutcome<Answer> =
  | { readonly kind: 'answered'; readonly answer: Answer }
  | { readonly kind: 'timed-out' }
  | { readonly kind: 'unavailable'; readonly reason: string };

interface Job<Request, Answer> {
  readonly message: DeadlineWorkerRequest<Request>;
  readonly timeLimitMs: number | undefined;
  readonly resolve: (outcome: DeadlineOutcome<Answer>) => void;
  readonly reject: (error: Error) => void;
}

// A worker loads in about 30 ms from dist/ and a few hundred under tsx; a slow 2-core machine under load gets room.
const DEFAULT_START_TIMEOUT_MS = 20_000;

/**
 * Runs requests in one reused worker thread, in arrival order, one at a time (or up to `maxInFlight` sent ahead,
 * without deadlines), and terminates the worker when a request overruns its deadline (the next request starts a
 * fresh worker); answers `unavailable`, once said, when no worker can be started.
 */
export class DeadlineWorker<Request, Answer> {
  private worker: Worker | undefined;
  private ready = false;
  private startTimer: NodeJS.Timeout | undefined;
  /** The requests sent to the worker and not yet answered, oldest first. */
  private running: { readonly job: Job<Request, Answer>; readonly timer: NodeJS.Timeout | undefined }[] = [];
  private readonly queue: Job<Request, Answer>[] = [];
  private nextId = 0;
  private fallbackReason: string | undefined;
  private started = 0;
  private readonly entry: URL;
  private readonly name: string;
  private readonly task: string;
  private readonly fallbackNote: string;
  private readonly warn: (message: string) => void;
  private readonly startTimeoutMs: number;
  private readonly maxHeapMb: number;
  private readonly maxYoungHeapMb: number | undefined;
  private readonly holdWhileLoading: boolean;
  private readonly maxInFlight: number;

  constructor(options: DeadlineWorkerOptions) {
    this.entry = options.entry;
    this.name = options.name;
    this.task = options.task;
    this.fallbackNote = options.fallbackNote;
    this.warn = options.warn ?? ((message) => process.stderr.write(`artifact-ingest: ${message}\n`));
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.maxHeapMb = options.maxHeapMb ?? Math.floor(getHeapStatistics().heap_size_limit / 2 ** 20);
    this.maxYoungHeapMb = options.maxYoungHeapMb;
    this.holdWhileLoading = options.holdWhileLoading ?? true;
    this.maxInFlight = options.maxInFlight ?? 1;
  }

  /** Whether a worker has loaded and serves: what is asked now is taken at once. */
  get loaded(): boolean {
    return this.ready;
  }

  /** Workers started so far (a terminated one is replaced by the next request's). */
  get workersStarted(): number {
    return this.started;
  }

  /** Why no worker serves, once none could be started; undefined while workers serve. */
  get fallback(): string | undefined {
    return this.fallbackReason;
  }

  /**
   * The request's outcome; `timeLimitMs` runs from when the worker takes the request (undefined or infinite:
   * no deadline). Rejects when the worker throws or dies while on it.
   */
  run(request: Request, timeLimitMs?: number): Promise<DeadlineOutcome<Answer>> {
    if (this.maxInFlight > 1 && timeLimitMs !== undefined && Number.isFinite(timeLimitMs))
      throw new Error(`the ${this.name} takes several requests at once: none can have a deadline`);
    return new Promise<DeadlineOutcome<Answer>>((resolve, reject) => {
      this.queue.push({ message: { id: this.nextId++, request }, timeLimitMs, resolve, reject });
      this.pump();
    });
  }

  /** Starts a worker ahead of the first request, unless one is there or none can be had; it holds nothing open. */
  start(): void {
    if (this.worker !== undefined || this.fallbackReason !== undefined) return;
    this.startWorker()?.unref();
  }

  /** Terminates the worker; requests still queued are run by a fresh worker when another is asked for. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.discardWorker();
    if (worker !== undefined) await worker.terminate();
  }

  private pump(): void {
    if (this.running.length >= this.maxInFlight) return;
    const reason = this.fallbackReason;
    if (reason !== undefined) {
      for (let job = this.queue.shift(); job !== undefined; job = this.queue.shift())
        job.resolve({ kind: 'unavailable', reason });
      return;
    }
    if (this.queue.length === 0) {
      // Idle: the worker must never keep the process alive.
      if (this.running.length === 0) this.worker?.unref();
      return;
    }
    const worker = this.worker ?? this.startWorker();
    if (worker === undefined) return;
    // Busy: a pending request keeps the process alive like any other pending I/O (while loading, unless told not).
    if (this.ready || this.holdWhileLoading) worker.ref();
    else worker.unref();
    if (!this.ready) return;
    while (this.running.length < this.maxInFlight) {
      const job = this.queue.shift();
      if (job === undefined) return;
      // The deadline runs from when the worker takes the request: one queued behind another is not charged.
      const timer =
        job.timeLimitMs === undefined || !Number.isFinite(job.timeLimitMs)
          ? undefined
          : setTimeout(() => {
              this.expire(job);
            }, job.timeLimitMs);
      this.running.push({ job, timer });
      worker.postMessage(job.message);
    }
  }

  private startWorker(): Worker | undefined {
    let worker: Worker;
    try {
      worker = startWorkerThread(this.entry, {
        maxOldGenerationSizeMb: this.maxHeapMb,
        ...(this.maxYoungHeapMb === undefined ? {} : { maxYoungGenerationSizeMb: this.maxYoungHeapMb }),
      });
    } catch (error) {
      this.fallBack(`cannot start the ${this.name} (${describeError(error)})`);
      return undefined;
    }
    this.worker = worker;
    this.ready = false;
    worker.on('message', (answer: DeadlineWorkerAnswer<Answer>) => {
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
        this.fallBack(`the ${this.name} did not start within ${String(this.startTimeoutMs)} ms`);
    }, this.startTimeoutMs);
    this.startTimer.unref();
    return worker;
  }

  private answer(answer: DeadlineWorkerAnswer<Answer>): void {
    if ('ready' in answer) {
      this.ready = true;
      this.started += 1;
      clearTimeout(this.startTimer);
      this.pump();
      return;
    }
    // Answers come in the order the requests were sent.
    const current = this.running[0];
    if (current?.job.message.id !== answer.id) return;
    clearTimeout(current.timer);
    this.running.shift();
    if ('answer' in answer) current.job.resolve({ kind: 'answered', answer: answer.answer });
    else current.job.reject(new Error(`${this.task} failed in the ${this.name}: ${answer.error}`));
    this.pump();
  }

  /** The worker died: before it loaded, no worker can be had (fail open); later, only its request is lost. */
  private lost(what: string): void {
    if (!this.ready) {
      this.fallBack(`cannot start the ${this.name} (it ${what})`);
      return;
    }
    const lost = this.running.splice(0);
    // Sent several at once, what waits is failed too: nothing runs out of order on a new worker.
    if (this.maxInFlight > 1) lost.push(...this.queue.splice(0).map((job) => ({ job, timer: undefined })));
    this.discardWorker();
    for (const { job, timer } of lost) {
      clearTimeout(timer);
      job.reject(new Error(`the ${this.name} ${what} while ${this.task}`));
    }
    this.pump();
  }

  private expire(job: Job<Request, Answer>): void {
    // Only with one request at a time: the one running is this one.
    if (this.running[0]?.job !== job) return;
    this.running = [];
    // Terminating is the only way to stop work that does not return; the next request starts a new worker.
    this.discardWorker();
    job.resolve({ kind: 'timed-out' });
    this.pump();
  }

  private fallBack(reason: string): void {
    this.fallbackReason = reason;
    this.discardWorker();
    this.warn(`${reason}; ${this.fallbackNote}`);
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
