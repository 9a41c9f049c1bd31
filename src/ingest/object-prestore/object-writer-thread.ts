import { DeadlineWorker, workerEntryBeside } from '../deadline-worker/index.js';
import type {
  ObjectWriterAnswer,
  ObjectWriterRequest,
  PlaceAnswer,
  PlaceRequest,
} from './object-writer-message.js';

/** Options of an {@link ObjectWriterThread}; the defaults serve the process's one. */
export interface ObjectWriterThreadOptions {
  /** The thread's entry module; by default object-writer-worker beside this module. */
  readonly entry?: URL;
  /** How long a starting thread may take to load before none is to be had. */
  readonly startTimeoutMs?: number;
  /** Bytes sent and not yet answered, at most: past them a batch is not sent (whoever needs it writes it). */
  readonly maxQueuedBytes?: number;
}

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
 * What places a streaming ingest's blocks off its thread (an {@link ObjectWriterThread}, D135): one request at a
 * time per stream, in the order the stream decides them.
 */
export interface BlockPlacer {
  /** Whether a placement asked now is taken at once (the thread has loaded). */
  readonly ready: boolean;
  /**
   * Places the block; undefined when it was not (no thread has loaded yet: one is started; or none can be had),
   * so the stream places it itself. Rejects when the thread was lost or threw while on it: the file may be placed.
   */
  place(request: Omit<PlaceRequest, 'kind'>): Promise<PlaceAnswer> | undefined;
  /** Finishes the session's shared batch; never rejects. */
  finishBatch(session: number): Promise<void>;
  /** Says the stream's records start storing objects: the thread stores the rest from the last; never rejects. */
  recordsStarting(session: number): Promise<void>;
  /** Closes what the session holds open in the thread; never rejects. */
  endSession(session: number): Promise<void>;
}

const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
/**
 * The thread holds at most the queued bytes and one store: a small heap of its own, apart from the process's, and
 * a small young generation (by default it grows to tens of MB while batches come; 2 MB keeps a 1 MB answer's
 * objects costing about what the records' writing them costs, measured in a fresh process).
 */
const WORKER_HEAP_MB = 64;
const WORKER_YOUNG_HEAP_MB = 2;
/** Requests sent before the first is answered, at most: each stream bounds its own by their bytes. */
const MAX_IN_FLIGHT = 1024;
const THREAD = 'object writer thread';

/**
 * One worker thread that stores objects in projects' files object stores, batch after batch, so a streaming
 * ingest can have each placed file's object written while it goes on reading (D134), and places the blocks of
 * streams with fsync while they read on (D135): a `DeadlineWorker` without deadlines, silent when no thread can be
 * had. Best effort throughout: a batch not sent, not stored or lost with its thread is written again by the
 * records, which store whatever is missing; a block not placed is placed by its stream. Started on first use,
 * never holding the process open while idle or while it loads.
 */
export class ObjectWriterThread implements ObjectWriter, BlockPlacer {
  private readonly worker: DeadlineWorker<ObjectWriterRequest, ObjectWriterAnswer>;
  private readonly maxQueuedBytes: number;
  private queuedBytes = 0;

  constructor(options: ObjectWriterThreadOptions = {}) {
    this.worker = new DeadlineWorker({
      entry: options.entry ?? workerEntryBeside(import.meta.url, 'object-writer-worker'),
      name: THREAD,
      task: 'storing objects and placing files',
      fallbackNote: 'the records write every object',
      // Nothing is lost without it: the records write the objects, so there is nothing to warn about.
      warn: () => undefined,
      startTimeoutMs: options.startTimeoutMs,
      maxHeapMb: WORKER_HEAP_MB,
      maxYoungHeapMb: WORKER_YOUNG_HEAP_MB,
      // Nobody waits on a batch before the thread has loaded (a stream's end does not).
      holdWhileLoading: false,
      // A stream's blocks go one after another without waiting for answers (bounded by its bytes in flight).
      maxInFlight: MAX_IN_FLIGHT,
    });
    this.maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  }

  /** Whether the thread has loaded: before, nothing sent to it is worth waiting for. */
  get ready(): boolean {
    return this.worker.loaded;
  }

  /**
   * Sends `objects` (copied into one buffer of the batch's own) to be stored under `projectDir`'s files store;
   * resolves true once stored, false when the thread failed them, was lost, or none could be had. Undefined when
   * nothing was sent: no thread can be had, or the bytes already sent and not answered would pass the limit. The
   * batch holds the process open only once the thread has loaded ({@link ObjectWriterThread.ready}).
   */
  write(
    projectDir: string,
    durability: 'fsync' | 'none',
    objects: readonly Uint8Array[],
  ): Promise<boolean> | undefined {
    if (this.worker.fallback !== undefined || objects.length === 0) return undefined;
    const size = objects.reduce((sum, object) => sum + object.byteLength, 0);
    if (this.queuedBytes + size > this.maxQueuedBytes) return undefined;
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const object of objects) {
      bytes.set(object, at);
      at += object.byteLength;
    }
    const lengths = objects.map((object) => object.byteLength);
    this.queuedBytes += size;
    return this.worker.run({ kind: 'objects', projectDir, durability, bytes, lengths }).then(
      (outcome) => {
        this.queuedBytes -= size;
        return outcome.kind === 'answered';
      },
      () => {
        this.queuedBytes -= size;
        return false;
      },
    );
  }

  /** Starts the thread ahead of its first request (it holds nothing open); see {@link ObjectWriterThread.ready}. */
  start(): void {
    this.worker.start();
  }

  place(request: Omit<PlaceRequest, 'kind'>): Promise<PlaceAnswer> | undefined {
    if (this.worker.fallback !== undefined) return undefined;
    if (!this.worker.loaded) {
      this.start();
      return undefined;
    }
    return this.worker.run({ kind: 'place', ...request }).then((outcome) => {
      if (outcome.kind !== 'answered' || outcome.answer === null || typeof outcome.answer === 'number')
        throw new Error(`the ${THREAD} did not place the block (${outcome.kind})`);
      return outcome.answer;
    });
  }

  finishBatch(session: number): Promise<void> {
    return this.tell({ kind: 'finish-batch', session });
  }

  recordsStarting(session: number): Promise<void> {
    return this.tell({ kind: 'records-starting', session });
  }

  endSession(session: number): Promise<void> {
    return this.tell({ kind: 'end-session', session });
  }

  /** Sends what a session's stream says; settles once the thread has taken it, or is gone. Never rejects. */
  private tell(request: ObjectWriterRequest & { readonly session: number }): Promise<void> {
    return this.worker.run(request).then(
      () => undefined,
      () => undefined,
    );
  }

  /** Stops the thread. */
  close(): Promise<void> {
    return this.worker.close();
  }
}

let shared: ObjectWriterThread | undefined;

/** The process's one object writer thread, made on first use. */
export function objectWriterThread(): ObjectWriterThread {
  shared ??= new ObjectWriterThread();
  return shared;
}
