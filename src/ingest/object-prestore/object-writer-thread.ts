import type { Worker } from 'node:worker_threads';
import { startWorkerThread, workerEntryBeside } from '../deadline-worker/index.js';
import type { ObjectWriteAnswer, ObjectWriteRequest } from './object-writer-message.js';

/** Options of an {@link ObjectWriterThread}; the defaults serve the process's one. */
export interface ObjectWriterThreadOptions {
  /** The thread's entry module; by default object-writer-worker beside this module. */
  readonly entry?: URL;
  /** How long a starting thread may take to load before none is to be had. */
  readonly startTimeoutMs?: number;
  /** Bytes sent and not yet answered, at most: past them a batch is not sent (whoever needs it writes it). */
  readonly maxQueuedBytes?: number;
}

// A thread loads in about 30 ms from dist/ and a few hundred under tsx.
const DEFAULT_START_TIMEOUT_MS = 20_000;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/**
 * The thread holds at most the queued bytes and one store: a small heap of its own, apart from the process's, and
 * a small young generation (by default it grows to tens of MB while batches come; 2 MB keeps a 1 MB answer's
 * objects costing about what the records' writing them costs, measured in a fresh process).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 2 };
/** Threads lost after loading before the process stops starting new ones. */
const MAX_LOST = 3;

/** What a stream sends its placed files' objects to (an {@link ObjectWriterThread}). */
export interface ObjectWriter {
  /** Whether what is sent now is worth waiting for (the thread has loaded). */
  readonly ready: boolean;
  /** Sends objects to be stored; resolves true once stored, false if not; undefined when nothing was sent. */
  write(
    projectDir: string,
    durability: 'fsync' | 'none',
    objects: readonly Uint8Array[],
  ): Promise<boolean> | undefined;
}

/**
 * One worker thread that stores objects in projects' files object stores, batch after batch, so a streaming
 * ingest can have each placed file's object written while it goes on reading (D134). Best effort throughout: a
 * batch not sent, not stored or lost with its thread is written again by the records, which store whatever is
 * missing. Started on the first batch, never holding the process open while idle.
 */
export class ObjectWriterThread implements ObjectWriter {
  private worker: Worker | undefined;
  private loaded = false;
  private unavailable = false;
  private lost = 0;
  private queuedBytes = 0;
  private nextId = 0;
  private startTimer: NodeJS.Timeout | undefined;
  private readonly waiting = new Map<
    number,
    { readonly bytes: number; readonly answer: (stored: boolean) => void }
  >();
  private readonly entry: URL;
  private readonly startTimeoutMs: number;
  private readonly maxQueuedBytes: number;

  constructor(options: ObjectWriterThreadOptions = {}) {
    this.entry = options.entry ?? workerEntryBeside(import.meta.url, 'object-writer-worker');
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** Whether the thread has loaded: before, nothing sent to it is worth waiting for. */
  get ready(): boolean {
    return this.loaded && this.worker !== undefined;
  }

  /**
   * Sends `objects` (copied into one buffer that moves to the thread) to be stored under `projectDir`'s files store; resolves true once stored, false when
   * the thread failed them or was lost. Undefined when nothing was sent: no thread can be had, or the bytes
   * already sent and not answered would pass the limit. The batch holds the process open only once the thread
   * has loaded ({@link ObjectWriterThread.ready}): before, a process that ends is not kept for it.
   */
  write(
    projectDir: string,
    durability: 'fsync' | 'none',
    objects: readonly Uint8Array[],
  ): Promise<boolean> | undefined {
    if (this.unavailable || objects.length === 0) return undefined;
    const bytes = objects.reduce((sum, object) => sum + object.byteLength, 0);
    if (this.queuedBytes + bytes > this.maxQueuedBytes) return undefined;
    const worker = this.worker ?? this.start();
    if (worker === undefined) return undefined;
    const id = this.nextId++;
    // One buffer of the batch's own, moved to the thread: a file's bytes may be a view of a larger buffer (Node's
    // pool), which a copy made by postMessage would take whole.
    const joined = new Uint8Array(bytes);
    let at = 0;
    for (const object of objects) {
      joined.set(object, at);
      at += object.byteLength;
    }
    const lengths = objects.map((object) => object.byteLength);
    const request: ObjectWriteRequest = { id, projectDir, durability, bytes: joined, lengths };
    try {
      worker.postMessage(request, [joined.buffer]);
    } catch {
      return undefined;
    }
    this.queuedBytes += bytes;
    // A batch in flight to a loaded thread keeps the process alive like any pending write (a stream may wait on
    // it); an idle thread, or one still loading (nobody waits on it), never does.
    if (this.loaded) worker.ref();
    return new Promise<boolean>((answer) => this.waiting.set(id, { bytes, answer }));
  }

  /** Stops the thread; batches in flight are answered false. */
  async close(): Promise<void> {
    const worker = this.worker;
    this.discard();
    await worker?.terminate();
  }

  private start(): Worker | undefined {
    let worker: Worker;
    try {
      worker = startWorkerThread(this.entry, WORKER_LIMITS);
    } catch {
      this.unavailable = true;
      return undefined;
    }
    this.worker = worker;
    this.loaded = false;
    worker.on('message', (answer: ObjectWriteAnswer) => {
      if (worker === this.worker) this.answer(answer);
    });
    worker.on('error', () => {
      if (worker === this.worker) this.lose();
    });
    worker.on('exit', () => {
      if (worker === this.worker) this.lose();
    });
    // Loading holds nothing open: a process that ends before the thread loads is not kept waiting for it. (After
    // the listeners: a 'message' listener refs the thread again.)
    worker.unref();
    this.startTimer = setTimeout(() => {
      if (worker !== this.worker || this.loaded) return;
      this.unavailable = true;
      void this.close();
    }, this.startTimeoutMs);
    this.startTimer.unref();
    return worker;
  }

  private answer(answer: ObjectWriteAnswer): void {
    if ('ready' in answer) {
      this.loaded = true;
      clearTimeout(this.startTimer);
      if (this.waiting.size > 0) this.worker?.ref();
      return;
    }
    const waiting = this.waiting.get(answer.id);
    if (waiting === undefined) return;
    this.waiting.delete(answer.id);
    this.queuedBytes -= waiting.bytes;
    if (this.waiting.size === 0) this.worker?.unref();
    waiting.answer('stored' in answer);
  }

  /** The thread died: before it loaded, none is to be had; after, the next batch starts another (a few times). */
  private lose(): void {
    if (!this.loaded || ++this.lost >= MAX_LOST) this.unavailable = true;
    this.discard();
  }

  private discard(): void {
    clearTimeout(this.startTimer);
    const worker = this.worker;
    // A thread let go may still fail: that must never be an unhandled 'error' event.
    worker?.removeAllListeners().on('error', () => undefined);
    worker?.unref();
    this.worker = undefined;
    this.loaded = false;
    for (const { answer } of this.waiting.values()) answer(false);
    this.waiting.clear();
    this.queuedBytes = 0;
  }
}

let shared: ObjectWriterThread | undefined;

/** The process's one object writer thread, made on first use. */
export function objectWriterThread(): ObjectWriterThread {
  shared ??= new ObjectWriterThread();
  return shared;
}
