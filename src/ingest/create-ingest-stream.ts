import path from 'node:path';
import type { Transformer } from 'node:stream/web';
import { FenceFeed } from '../fence/index.js';
import type { FenceBlock } from '../fence/index.js';
import { DEFAULT_INGEST_LIMITS, defaultMaxParseMs } from '../config/index.js';
import type { IngestLimits } from '../config/index.js';
import { describeError, parseNodeId, parseRunId, redactSecrets } from '../project/index.js';
import { openProject } from '../store/index.js';
import type { Project, ProjectRef } from '../store/index.js';
import { findSecretInPath, SpooledFile } from '../workspace/index.js';
import { applyPlans } from './apply-plans.js';
import type { AppliedPlans, ApplyOptions, IngestedContent } from './apply-plans.js';
import type { BlockOutcome } from './block-outcome.js';
import { LingeringLock } from './lingering-lock.js';
import { projectRelative, runIngestWith } from './ingest-document.js';
import type { IngestProblem, ReportProblem } from './ingest-problem.js';
import type { IngestManifest, IngestMode, SourceKind } from './ingest-manifest.js';
import { openIngestRoots } from './ingest-roots.js';
import type { SharedIngestRoots } from './ingest-roots.js';
import { decidedPlan, planBlock, settlePlans } from './plan-blocks.js';
import { KeptPlans, NO_BYTES } from './kept-plans.js';
import type { BlockPlan } from './plan-blocks.js';
import { hashOfFile, StreamedWrites } from './streamed-writes.js';
import { KeptBytes, STREAM_HELD_BYTES } from './kept-bytes.js';
import { InFlightBlocks } from './in-flight-blocks.js';
import { LockBatch } from './lock-batch.js';
import {
  objectPrestoreFor,
  objectWriterThread,
  PRESTORE_PENDING_BYTES,
  PRESTORE_START_BYTES,
  PRESTORE_START_FILES,
} from './object-prestore/index.js';
import type { BlockPlacer, ObjectPrestore, ObjectWriter, PlaceAnswer } from './object-prestore/index.js';

/** What the library's own callers tell {@link createIngestStream} beyond its options. */
export interface IngestStreamInternals {
  /**
   * `onPlaced` records the placed files in the project's store: in a files store, each file's object is then
   * written while the stream goes on (D134), so the records find it stored.
   */
  readonly recordsInProjectStore?: boolean;
  /** Where those objects are sent; by default the process's object writer thread. */
  readonly objectWriter?: ObjectWriter;
  /**
   * What places blocks off the calling thread once the stream has placed enough (D135); null for nothing (every
   * block placed on the calling thread). By default the process's object writer thread with durability `fsync`,
   * where each placement waits on the disk, and nothing without: there a placement is all CPU, and a second
   * thread doing it was not faster on a 2-core machine.
   */
  readonly placer?: BlockPlacer | null;
  /**
   * Each chunk's write settles only once the blocks it closed are decided, their files on disk, even while blocks
   * are placed off the calling thread (the AI SDK adapter passes a text part on only then).
   */
  readonly settleEachChunk?: boolean;
}

/**
 * A block larger than this is placed on the calling thread: the thread's heap stays small, and such a file's
 * time is its bytes', not the per-file calls a thread saves.
 */
const THREAD_PLACE_MAX_BYTES = 1024 * 1024;

/** Each stream's session in the placing thread. */
let nextPlacementSession = 0;

/** Options of {@link createIngestStream}: those of `ingestDocument`, plus where the whole text is saved and a signal. */
export interface IngestStreamOptions {
  /** The project folder, or a `Project` (its owner closes its store). */
  readonly projectDir: ProjectRef;
  /** Where the whole text is saved, byte for byte, once the stream ends (relative to the project, or inside it). */
  readonly docPath: string;
  readonly runId: string;
  readonly nodeId: string;
  readonly sourceKind?: SourceKind;
  readonly mode?: IngestMode;
  readonly durability?: 'fsync' | 'none';
  /** Unset limits take their defaults, as `ingestDocument`'s. */
  readonly limits?: Partial<IngestLimits>;
  /** Aborting ends the stream as cut off: what was decided stays, nothing partial is written. */
  readonly signal?: AbortSignal;
  /**
   * Records the files the document placed when it ends (see `IngestOptions.onPlaced`): in document order, in one
   * call, or in several when their bytes pass {@link STREAM_HELD_BYTES} (each call then holds at most that many,
   * or one file larger than that).
   */
  readonly onPlaced?: (contents: readonly IngestedContent[]) => Promise<void>;
  /** Clock, for reproducible manifests in tests. */
  readonly now?: () => Date;
}

/** How a block was decided the moment its closing fence line was complete. */
export type StreamedBlockEventType = 'block.written' | 'block.unchanged' | 'block.skipped' | 'block.rejected';

/** One event of a streaming ingest, named by its `type`; `document.done` comes last. */
export type IngestStreamEvent =
  | {
      readonly type: 'block.opened';
      readonly index: number;
      readonly lang: string;
      readonly declaredFile: string;
    }
  | { readonly type: StreamedBlockEventType; readonly block: BlockOutcome }
  /** After the end: a block written while streaming whose file a later block of the document wrote again. */
  | { readonly type: 'block.superseded'; readonly block: BlockOutcome }
  | {
      readonly type: 'document.done';
      readonly manifest: IngestManifest;
      /** Project-relative manifest path, or null when none was written. */
      readonly manifestPath: string | null;
      readonly problems: readonly IngestProblem[];
      /** True when the stream was aborted or its source failed: only the text up to its last complete line counts. */
      readonly cutOff: boolean;
    };

/**
 * A `TransformStream` from a document's text, in chunks of any size, to its block events: each block is judged,
 * and its file written atomically, the moment its closing fence line is complete; at the end the whole text is
 * saved at `docPath` and ingested as `ingestDocument` would, so the workspace, manifest and records are the same.
 */
export function createIngestStream(
  options: IngestStreamOptions,
  internal: IngestStreamInternals = {},
): TransformStream<string, IngestStreamEvent> {
  const ingest = new StreamingIngest(options, internal);
  let controllerOf: TransformStreamDefaultController<IngestStreamEvent> | undefined;
  const onAbort = (): void => {
    if (controllerOf !== undefined) void ingest.cutOff(controllerOf, abortReason(options.signal));
  };
  // `cancel` (the writable side aborted: the source failed) is in the WHATWG spec and Node 20, not yet in TS's types.
  const transformer: Transformer<string, IngestStreamEvent> & { cancel: (reason: unknown) => Promise<void> } =
    {
      start(controller) {
        controllerOf = controller;
        if (options.signal?.aborted === true) onAbort();
        else options.signal?.addEventListener('abort', onAbort, { once: true });
      },
      transform: (chunk, controller) => ingest.push(chunk, controller),
      flush: async (controller) => {
        options.signal?.removeEventListener('abort', onAbort);
        await ingest.finish(
          controller,
          options.signal?.aborted === true ? abortReason(options.signal) : undefined,
        );
      },
      cancel: async (reason: unknown) => {
        options.signal?.removeEventListener('abort', onAbort);
        await ingest.finish(undefined, `the source failed: ${describeError(reason)}`);
      },
    };
  return new TransformStream<string, IngestStreamEvent>(transformer);
}

const SURROGATE = /[\uD800-\uDFFF]/;

/** One streaming ingest's state: the fence feed, the plans kept for the end, and what it wrote. */
class StreamingIngest {
  private readonly feed = new FenceFeed();
  private readonly writes: StreamedWrites;
  /** The bytes the end needs again: each block's, and each placed file's for `onPlaced` (D133). */
  private readonly keptBytes: KeptBytes;
  /** Where placed files' objects are written while the stream goes on, when its records go to a files store. */
  private readonly prestore: ObjectPrestore | undefined;
  private readonly project: Project;
  private readonly ownStore: boolean;
  private readonly roots: SharedIngestRoots;
  private readonly docPath: string;
  private readonly limits: IngestLimits;
  /** A high surrogate held back until the next chunk says whether its pair follows. */
  private heldSurrogate = '';
  private bytes = 0;
  /** The document being saved as it streams (made at its first text); the text itself is not kept. */
  private spool: SpooledFile | undefined;
  /** Each block's own plan, kept for the end without its text. */
  private readonly kept: KeptPlans;
  /** Set once nothing more is decided: why (aborted, past max_document_bytes). */
  private stopped: { readonly problem: IngestProblem } | undefined;
  private readonly refusesAll: boolean;
  /** The workspace lock while blocks are placed: kept over a burst of them, let go before the end. */
  private readonly lock: LingeringLock;
  /** The batch the writes under one hold of the lock share, without durability. */
  private readonly batch: LockBatch;
  private announced = -1;
  /** The highest index of an open block whose announcement is queued. */
  private openQueued = -1;
  private readonly problems: IngestProblem[] = [];
  /** Placed files the end could not read back to record (told in `document.done`, as records failures are). */
  private readonly unrecorded: IngestProblem[] = [];
  private finished: Promise<void> | undefined;
  /** What places blocks off the calling thread, once this stream has placed enough to be worth it (D135). */
  private readonly placer: BlockPlacer | undefined;
  private readonly placementSession = nextPlacementSession++;
  private readonly settleEachChunk: boolean;
  /** Files placed (or found in place) and their bytes, until enough for the placing thread. */
  private placedFiles = 0;
  private placedBytes = 0;
  /** Set once a block went to the placing thread: its session is then ended with the stream. */
  private placedOnThread = false;
  /** Set when the placing thread was lost while placing: the stream places the rest itself. */
  private threadLost = false;
  /** The blocks sent to the placing thread and not yet answered. */
  private readonly inFlight = new InFlightBlocks();
  /** The events given so far, in order (see `emit`). */
  private emitted: Promise<void> = Promise.resolve();
  /** How many decisions are queued and not done. */
  private queued = 0;
  /** The decisions in flight, in order: a block is decided only after the one before it. */
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: IngestStreamOptions,
    internal: IngestStreamInternals,
  ) {
    // Misuse is refused when the stream is made, with the ingest's own errors.
    parseRunId(options.runId, 'runId');
    parseNodeId(options.nodeId, 'nodeId');
    const { projectDir } = options;
    this.project = typeof projectDir === 'string' ? openProject(path.resolve(projectDir)) : projectDir;
    this.ownStore = typeof projectDir === 'string';
    const dir = path.resolve(this.project.dir);
    this.docPath = projectRelative(dir, options.docPath, 'pass a docPath inside the project');
    this.roots = openIngestRoots(dir);
    this.batch = new LockBatch(this.roots, options.durability ?? 'fsync');
    this.keptBytes = new KeptBytes(this.project, options.durability ?? 'fsync');
    this.prestore =
      internal.recordsInProjectStore === true && options.onPlaced !== undefined
        ? objectPrestoreFor(this.project, options.durability ?? 'fsync', internal.objectWriter)
        : undefined;
    this.placer =
      internal.placer === undefined
        ? (options.durability ?? 'fsync') === 'fsync'
          ? objectWriterThread()
          : undefined
        : (internal.placer ?? undefined);
    this.settleEachChunk = internal.settleEachChunk === true;
    this.writes = new StreamedWrites((bytes) => this.keptBytes.read(bytes));
    this.lock = new LingeringLock(this.project, () => this.finishBatch());
    this.limits = { ...DEFAULT_INGEST_LIMITS, maxParseMs: defaultMaxParseMs(undefined), ...options.limits };
    this.kept = new KeptPlans(this.limits.maxBlocks);
    // A document whose path holds a secret is refused whole at the end; nothing is written before.
    this.refusesAll = findSecretInPath(this.docPath) !== undefined;
  }

  /**
   * Takes a chunk; settles once the blocks it ended are decided and the saved text has caught up (undefined when
   * there is nothing to wait for, as for most chunks). Once blocks go to the placing thread (D135), unless each
   * chunk is to settle, a chunk settles once its blocks are judged and sent there: their events follow, in order,
   * as the thread answers, while the text after them is read.
   */
  push(
    chunk: string,
    controller: TransformStreamDefaultController<IngestStreamEvent>,
  ): Promise<void> | undefined {
    if (this.stopped !== undefined || chunk.length === 0) return undefined;
    // A pair split across chunks is joined: a trailing high surrogate waits for the next chunk.
    let text = this.heldSurrogate + chunk;
    const last = text.charCodeAt(text.length - 1);
    this.heldSurrogate = last >= 0xd800 && last <= 0xdbff ? text.slice(-1) : '';
    if (this.heldSurrogate !== '') text = text.slice(0, -1);
    const saving = this.accept(wellFormed(text), controller);
    // A chunk that ended no block queued nothing: it is taken at once, without a promise of its own.
    if (this.queued === 0) return saving;
    return saving === undefined ? this.queue : Promise.all([this.queue, saving]).then(() => undefined);
  }

  /**
   * Adds well-formed text: to the document, and to the fence feed while within max_document_bytes. Returns a promise
   * when the saved document asks the writer to wait (its batches are not yet on disk).
   */
  private accept(
    text: string,
    controller: TransformStreamDefaultController<IngestStreamEvent>,
  ): Promise<void> | undefined {
    if (text === '') return undefined;
    this.bytes += Buffer.byteLength(text, 'utf8');
    if (this.bytes > this.limits.maxDocumentBytes) {
      this.stop({
        code: 'too_large',
        message: `${this.docPath} passed max_document_bytes (${this.limits.maxDocumentBytes} bytes) while streaming; the blocks decided before stay, the rest was not ingested`,
      });
      return undefined;
    }
    // Lone surrogates are U+FFFD already, so each chunk's UTF-8 bytes, one after the other, are the document's.
    let saving: Promise<void> | undefined;
    if (!this.refusesAll) {
      this.spool ??= new SpooledFile(this.documentFile(), this.options.durability ?? 'fsync');
      saving = this.spool.write(text);
    }
    this.decide(this.feed.push(text), controller);
    return saving;
  }

  /**
   * Queues the decisions of the blocks the feed ended, and announces the block it holds open. A candidate past
   * max_blocks is only counted, at once: no event, as the post-write ingest lists none of them (one manifest entry
   * counts them at the end), so neither the events nor the work grow with how many a document holds.
   */
  private decide(
    ended: readonly FenceBlock[],
    controller: TransformStreamDefaultController<IngestStreamEvent>,
  ): void {
    const { maxBlocks } = this.limits;
    let blocks = ended;
    if (ended.some((block) => block.index >= maxBlocks)) {
      blocks = ended.filter((block) => block.index < maxBlocks);
      for (const block of ended) if (block.index >= maxBlocks) this.kept.countPastMaxBlocks(block);
    }
    const held = this.feed.openBlock;
    const open = held !== undefined && held.index < maxBlocks ? held : undefined;
    // Most chunks end no block and open none: nothing is queued for them.
    if (blocks.length === 0 && (open === undefined || open.index <= this.openQueued)) return;
    if (open !== undefined) this.openQueued = Math.max(this.openQueued, open.index);
    this.queued += 1;
    this.queue = this.queue.then(async () => {
      for (const block of blocks) {
        const decided = await this.decideOne(block);
        this.emit(async () => {
          this.announce(block, controller);
          const outcome = 'outcome' in decided ? decided.outcome : await this.placed(decided);
          this.writes.decided(outcome);
          enqueue(controller, { type: eventTypeOf(outcome), block: outcome });
        });
      }
      if (open !== undefined)
        this.emit(() => {
          if (open.index <= this.announced) return;
          this.announced = open.index;
          enqueue(controller, { type: 'block.opened', ...open });
        });
      if (this.inFlight.count === 0 || this.settleEachChunk) await this.emitted;
      // Blocks are on the placing thread: one turn of the event loop takes the answers that came in meanwhile,
      // so each block's event follows its file as closely as the thread keeps up, however fast the text comes.
      else await new Promise<void>((resolve) => setImmediate(resolve));
      this.queued -= 1;
    });
  }

  /**
   * Adds a step to the stream's events: each runs once the one before has, so events come in document order
   * whether a block was decided here or is still being placed by the thread. A step that fails fails the ones after
   * it, and the stream, as a failed decision does.
   */
  private emit(step: () => void | Promise<void>): void {
    this.emitted = this.emitted.then(step);
    // Awaited by the next decision placed here, by `drain` and by the end; never an unhandled rejection meanwhile.
    this.emitted.catch(() => undefined);
  }

  /** Waits until every block sent to the placing thread is answered and its event given. */
  private async drain(): Promise<void> {
    await this.emitted;
  }

  private announce(block: FenceBlock, controller: TransformStreamDefaultController<IngestStreamEvent>): void {
    if (block.index <= this.announced) return;
    this.announced = block.index;
    enqueue(controller, {
      type: 'block.opened',
      index: block.index,
      lang: block.lang,
      declaredFile: block.declaredFile,
    });
  }

  /**
   * A closed block judged by the post-write rules, written when cleared, and kept for the end's: decided here, or
   * sent to the placing thread, whose answer {@link StreamingIngest.placed} takes in turn.
   */
  private async decideOne(block: FenceBlock): Promise<Decided> {
    const own = planBlock(block, this.limits);
    // Kept for the end: its bytes the stand-in its file's content gets (one copy held, or none past the budget). A
    // document refused whole writes nothing, not even an object: the end reads none of its bytes.
    if (own.kind !== 'write') this.kept.keep(own);
    else {
      const bytes = this.refusesAll ? NO_BYTES : await this.keptBytes.keep(own.bytes);
      this.kept.keep({ ...own, bytes, size: own.bytes.byteLength });
    }
    return this.judge(own);
  }

  /** A problem of a block's write, for `document.done` (redacted, as every problem). */
  private readonly report: ReportProblem = (code, message) => {
    this.problems.push({ code, message: redactSecrets(message) });
  };

  /** How a block's plan is carried out on this thread (with the lock's batch while it is held, see `LockBatch`). */
  private applyOptions(): ApplyOptions {
    return { roots: this.roots, dryRun: false, durability: this.options.durability ?? 'fsync' };
  }

  /** A block's own plan judged by the post-write rules, and written under the workspace lock when cleared. */
  private async judge(own: BlockPlan): Promise<Decided> {
    const { report } = this;
    const apply = this.applyOptions();
    // Alone, the document's rules can still refuse it: a block past max_total_bytes by itself.
    const [planned] = settlePlans([own], this.limits);
    if (planned === undefined) throw new Error('settlePlans returned no plan for a block');
    let plan: BlockPlan = planned;
    if (this.refusesAll)
      plan = decidedPlan(
        plan,
        plan.path,
        'secret_in_path',
        'the document path holds what looks like a credential; nothing is written',
      );
    else if (plan.kind === 'write') plan = (await this.refusal(plan)) ?? plan;
    // A refused block touches no file (and reports no problem): its outcome needs no block before it placed.
    if (plan.kind !== 'write')
      return { outcome: (await applyPlans([plan], apply, report)).blocks[0] ?? missing() };
    const cleared = plan;
    const digestReplaced = this.writes.isNew(cleared.path) && cleared.edit !== true;
    if (this.onThread(cleared)) {
      // At most PRESTORE_PENDING_BYTES wait for the thread: past them, the stream waits for its answers.
      if (this.inFlight.count > 0 && this.inFlight.bytes + cleared.bytes.byteLength > PRESTORE_PENDING_BYTES)
        await this.drain();
      const held = await this.lock.run(() => Promise.resolve(this.sendToThread(cleared, digestReplaced)));
      if (held.outcome === 'done' && held.value !== undefined) return held.value;
    }
    // Placed here: after every block before it.
    await this.drain();
    // Records are made once, at the end, under the lock again. Without the lock, no batch is shared: it is
    // finished when the lock is let go.
    const place = async (locked: boolean): Promise<BlockOutcome> => {
      // What a path held before the stream first wrote it: the writer reads it on the way, but for an edit block,
      // applied to a file it reads itself. A workspace/ that cannot be opened is the writer's io_error below.
      const beforeEdit =
        this.writes.isNew(cleared.path) && cleared.edit === true
          ? await this.roots.workspace().then(
              (workspace) => hashOfFile(workspace, cleared.path),
              () => null,
            )
          : undefined;
      const applied = await applyPlans(
        [cleared],
        { ...apply, ...(locked ? await this.batch.options() : {}), digestReplaced },
        report,
      );
      return this.notePlaced(cleared, applied, false, beforeEdit);
    };
    const held = await this.lock.run(() => place(true));
    if (held.outcome === 'done') return { outcome: held.value };
    // No lock file can be made (.agent/ is not a writable folder): as a post-write ingest does, the file is placed
    // without it (fail-open); the end, which cannot take it either, reports that once.
    if (held.outcome === 'unavailable') return { outcome: await place(false) };
    report('io_error', `workspace/ was not written: ${held.reason}`);
    return {
      outcome:
        (await applyPlans([decidedPlan(cleared, cleared.path, 'io_error', held.reason)], apply, report))
          .blocks[0] ?? missing(),
    };
  }

  /**
   * Why a cleared block cannot be written now that earlier blocks are on disk (see `StreamedWrites.refusal`), once
   * the blocks on the placing thread are answered when they may matter: a block on the same path (or one a
   * case-insensitive filesystem merges with it) is waited for, and so are all of them when counting them as placed
   * would refuse it. Counting them can only refuse more, so a block it clears is cleared either way.
   */
  private async refusal(plan: BlockPlan & { kind: 'write' }): Promise<BlockPlan | undefined> {
    const { maxTotalBytes } = this.limits;
    if (
      this.inFlight.count > 0 &&
      (this.inFlight.holds(plan.path) ||
        this.writes.refusal(plan, maxTotalBytes - this.inFlight.bytes) !== undefined)
    )
      await this.drain();
    return this.writes.refusal(plan, maxTotalBytes);
  }

  /**
   * Whether a cleared block goes to the placing thread (D135): once this stream has placed
   * {@link PRESTORE_START_FILES} files or {@link PRESTORE_START_BYTES}, a whole file (an edit block reads the file
   * it patches here) of at most {@link THREAD_PLACE_MAX_BYTES}, unless the thread was lost.
   */
  private onThread(plan: BlockPlan & { kind: 'write' }): boolean {
    return (
      this.placer !== undefined &&
      !this.threadLost &&
      plan.edit !== true &&
      plan.bytes.byteLength <= THREAD_PLACE_MAX_BYTES &&
      (this.placedFiles >= PRESTORE_START_FILES || this.placedBytes >= PRESTORE_START_BYTES)
    );
  }

  /**
   * Sends a cleared block to the placing thread, under the workspace lock (let go only once the thread has placed
   * what it was sent); undefined when not sent: no thread has loaded yet (one is started).
   */
  private sendToThread(plan: BlockPlan & { kind: 'write' }, digestReplaced: boolean): Decided | undefined {
    if (this.placer === undefined) return undefined;
    const answer = this.placer.place({
      session: this.placementSession,
      projectDir: path.resolve(this.project.dir),
      durability: this.options.durability ?? 'fsync',
      // The thread needs the bytes, not the block's text (an outcome reads only its index, lang and file=); a view
      // into a larger buffer is copied, as a message would carry the whole buffer.
      plan: { ...plan, bytes: ownBuffer(plan.bytes), block: { ...plan.block, content: '' } },
      digestReplaced,
      storeObject: this.prestore !== undefined,
    });
    if (answer === undefined) return undefined;
    // Taken in turn by `placed`; a rejection (the thread lost) is handled there, never unhandled meanwhile.
    answer.catch(() => undefined);
    this.placedOnThread = true;
    this.inFlight.add(plan.path, plan.bytes.byteLength);
    return { plan, digestReplaced, answer };
  }

  /**
   * A block sent to the placing thread, as its answer says it was placed; when the thread was lost before it
   * answered, placed here (and every block after it: the thread is not asked again). A file the lost thread had
   * already renamed into place is then found `unchanged`.
   */
  private async placed(sent: Extract<Decided, { answer: unknown }>): Promise<BlockOutcome> {
    const { plan, digestReplaced } = sent;
    const { report } = this;
    let applied: AppliedPlans;
    // The thread stores the placed file's object itself when asked to (see `sendToThread`).
    let stored = this.prestore !== undefined;
    try {
      const answer = await sent.answer;
      for (const problem of answer.problems) report(problem.code, problem.message);
      applied = {
        blocks: [...answer.blocks],
        contents: answer.contents.map((content) => ({ ...content, bytes: plan.bytes })),
        ...(answer.replaced === undefined ? {} : { replaced: new Map(answer.replaced) }),
      };
    } catch {
      this.threadLost = true;
      stored = false;
      applied = await applyPlans(
        [plan],
        { ...this.applyOptions(), ...(await this.batch.options()), digestReplaced },
        report,
      );
    } finally {
      this.inFlight.remove(plan.path, plan.bytes.byteLength);
    }
    return this.notePlaced(plan, applied, stored, undefined);
  }

  /**
   * Notes a cleared block's outcome once its file is placed (or found in place): what it left on disk, and its
   * content kept for the records; `stored`: the placing thread stored its object already.
   */
  private async notePlaced(
    plan: BlockPlan & { kind: 'write' },
    applied: AppliedPlans,
    stored: boolean,
    beforeEdit: string | null | undefined,
  ): Promise<BlockOutcome> {
    const outcome = applied.blocks[0] ?? missing();
    const [content] = applied.contents;
    if (content === undefined) return outcome;
    this.placedFiles += 1;
    this.placedBytes += content.bytes.byteLength;
    this.writes.placed(
      plan,
      outcome,
      await this.keptContent(content, stored),
      beforeEdit ?? applied.replaced?.get(outcome.index) ?? null,
    );
    return outcome;
  }

  /**
   * A placed file as kept for `onPlaced` (its bytes perhaps in the object store); without it, no bytes at all.
   * `stored`: the placing thread stored its object already.
   */
  private async keptContent(content: IngestedContent, stored: boolean): Promise<IngestedContent> {
    if (this.options.onPlaced === undefined) return { ...content, bytes: NO_BYTES };
    const bytes = await this.keptBytes.keep(content.bytes);
    // Bytes the budget already put in the object store need no second write.
    if (!stored && !this.keptBytes.isStored(bytes)) this.prestore?.add(content.bytes);
    return { ...content, bytes };
  }

  /**
   * Hands the placed files to `onPlaced` in document order, each one kept in the object store read back first:
   * in batches of at most {@link STREAM_HELD_BYTES} (or one larger file) once any was kept there. A file that cannot
   * be read back is not recorded, and the end says so.
   */
  private async placedInBatches(
    onPlaced: (contents: readonly IngestedContent[]) => Promise<void>,
    contents: readonly IngestedContent[],
  ): Promise<void> {
    // As late as can be: the objects written while the stream went on are stored before the records look.
    await this.prestore?.settle();
    // The thread stores the objects of the files it placed while the records do too, from the other end.
    if (this.placedOnThread && this.prestore !== undefined)
      void this.placer?.recordsStarting(this.placementSession);
    if (!contents.some((content) => this.keptBytes.isStored(content.bytes))) return onPlaced(contents);
    let batch: IngestedContent[] = [];
    let size = 0;
    for (const content of contents) {
      const loaded = await this.readBack(content);
      if (loaded === undefined) continue;
      if (batch.length > 0 && size + loaded.bytes.byteLength > STREAM_HELD_BYTES) {
        await onPlaced(batch);
        batch = [];
        size = 0;
      }
      batch.push(loaded);
      size += loaded.bytes.byteLength;
    }
    if (batch.length > 0) await onPlaced(batch);
  }

  /** A placed file with its bytes: read back from the object store when kept there, checked against their hash. */
  private async readBack(content: IngestedContent): Promise<IngestedContent | undefined> {
    try {
      return { ...content, bytes: await this.keptBytes.read(content.bytes) };
    } catch (error) {
      this.unrecorded.push({
        code: 'io_error',
        message: redactSecrets(
          `${content.workspacePath} was written, but its bytes could not be read back from the object store to record it: ${describeError(error)}`,
        ),
      });
      return undefined;
    }
  }

  /** Stops deciding blocks: an abort, a failed source, or the document past max_document_bytes. */
  private stop(problem: IngestProblem): void {
    // Only complete lines count: the end drops the partial last line (perhaps a closing fence without its ending).
    this.stopped ??= { problem };
  }

  /** Ends the stream early (the signal aborted): what was decided stays, and the document ends as cut off. */
  async cutOff(
    controller: TransformStreamDefaultController<IngestStreamEvent>,
    reason: string,
  ): Promise<void> {
    try {
      await this.finish(controller, reason);
      controller.terminate();
    } catch (error) {
      controller.error(error);
    }
  }

  /** Ends the document once: the whole-document rules, the manifest and the records, as a post-write ingest. */
  finish(
    controller: TransformStreamDefaultController<IngestStreamEvent> | undefined,
    cutOffReason?: string,
  ): Promise<void> {
    this.finished ??= this.finishOnce(controller, cutOffReason);
    return this.finished;
  }

  private async finishOnce(
    controller: TransformStreamDefaultController<IngestStreamEvent> | undefined,
    cutOffReason: string | undefined,
  ): Promise<void> {
    if (cutOffReason !== undefined)
      this.stop({
        code: 'cut_off',
        message: `${this.docPath} was cut off (${cutOffReason}); only the blocks decided before count`,
      });
    if (this.stopped === undefined) {
      // The saved document is committed below, after every batch: nothing to wait for here.
      if (this.heldSurrogate !== '') void this.accept('\uFFFD', controller ?? nullController);
      this.heldSurrogate = '';
    }
    this.decide(this.feed.end(this.stopped === undefined ? 'read' : 'drop'), controller ?? nullController);
    await this.queue;
    await this.drain();
    await this.lock.release();
    const problems = [...(this.stopped === undefined ? [] : [this.stopped.problem]), ...this.problems];
    try {
      // Nothing partial: a cut-off document is not saved; a whole one is, before it is recorded.
      if (this.stopped !== undefined || this.refusesAll) await this.spool?.discard();
      else {
        this.spool ??= new SpooledFile(this.documentFile(), this.options.durability ?? 'fsync');
        await this.spool.commit();
      }
    } catch (error) {
      problems.push({
        code: 'io_error',
        message: redactSecrets(`cannot save ${this.docPath}: ${describeError(error)}`),
      });
    }
    const { onPlaced } = this.options;
    try {
      const result = await runIngestWith(
        {
          projectDir: this.project,
          docPath: this.docPath,
          runId: this.options.runId,
          nodeId: this.options.nodeId,
          roots: this.roots,
          limits: this.limits,
          ...optional(this.options),
          ...(onPlaced === undefined
            ? {}
            : { onPlaced: (contents) => this.placedInBatches(onPlaced, contents) }),
        },
        {
          planned: this.kept.planned(),
          applyPlans: this.writes.applyPlans,
          problems,
        },
      );
      for (const block of result.blocks) {
        if (block.code === 'superseded' && this.writes.wrote(block.index))
          controller?.enqueue({ type: 'block.superseded', block });
      }
      controller?.enqueue({
        type: 'document.done',
        manifest: result.manifest,
        manifestPath: result.manifestPath,
        problems: [...result.problems, ...this.unrecorded],
        cutOff: this.stopped !== undefined && this.stopped.problem.code === 'cut_off',
      });
    } finally {
      await this.lock.release().catch(() => undefined);
      await this.roots.close().catch(() => undefined);
      await this.keptBytes.close();
      if (this.placedOnThread) await this.placer?.endSession(this.placementSession);
      if (this.ownStore) await this.project.store.close().catch(() => undefined);
    }
  }

  private async finishBatch(): Promise<void> {
    // The lock is let go only once the thread has placed what it was sent (and a lost thread's blocks are placed).
    await this.drain().catch(() => undefined);
    await this.batch.finish();
    if (this.placedOnThread) await this.placer?.finishBatch(this.placementSession);
  }

  private documentFile(): string {
    return path.join(path.resolve(this.project.dir), ...this.docPath.split('/'));
  }
}

/** Stands in for the stream's controller once its readable side is gone (the source failed): events are dropped. */
const nullController = {
  enqueue: () => undefined,
} as unknown as TransformStreamDefaultController<IngestStreamEvent>;

function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  return reason === undefined ? 'aborted' : `aborted: ${describeError(reason)}`;
}

/**
 * How a block was decided: its outcome, or the block sent to the placing thread with the answer to come (taken in
 * turn by `StreamingIngest.placed`).
 */
type Decided =
  | { readonly outcome: BlockOutcome }
  | {
      readonly plan: BlockPlan & { kind: 'write' };
      readonly digestReplaced: boolean;
      readonly answer: Promise<PlaceAnswer>;
    };

/** Gives an event; one the reader can no longer take (it cancelled) is dropped, and what it says stays done. */
function enqueue(
  controller: TransformStreamDefaultController<IngestStreamEvent>,
  event: IngestStreamEvent,
): void {
  try {
    controller.enqueue(event);
  } catch {
    // The readable side is gone: the end still records what was written.
  }
}

function ownBuffer(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
}

function eventTypeOf(outcome: BlockOutcome): StreamedBlockEventType {
  if (outcome.status === 'written') return 'block.written';
  if (outcome.status === 'rejected') return 'block.rejected';
  return outcome.code === 'unchanged' ? 'block.unchanged' : 'block.skipped';
}

function missing(): never {
  throw new Error('applyPlans returned no outcome for a plan');
}

/** The text with each lone surrogate as U+FFFD, as its UTF-8 encoding (and so the saved document) holds it. */
function wellFormed(text: string): string {
  if (!SURROGATE.test(text)) return text;
  return text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
}

function optional(options: IngestStreamOptions): {
  sourceKind?: SourceKind;
  mode?: IngestMode;
  durability?: 'fsync' | 'none';
  onPlaced?: (contents: readonly IngestedContent[]) => Promise<void>;
  now?: () => Date;
} {
  return {
    ...(options.sourceKind === undefined ? {} : { sourceKind: options.sourceKind }),
    ...(options.mode === undefined ? {} : { mode: options.mode }),
    ...(options.durability === undefined ? {} : { durability: options.durability }),
    ...(options.onPlaced === undefined ? {} : { onPlaced: options.onPlaced }),
    ...(options.now === undefined ? {} : { now: options.now }),
  };
}
