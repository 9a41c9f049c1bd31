// The entry of the object writer thread (started by object-writer-thread.ts): it stores each batch of objects
// it is sent in the project's files object store, and places the blocks of streaming ingests in their projects'
// workspace/ (D135), one request after another, answering each.
import { openObjectStore } from '../../store/index.js';
import type { ObjectStore } from '../../store/index.js';
import { serveDeadlineWorker } from '../deadline-worker/index.js';
import { applyPlans } from '../apply-plans.js';
import type { IngestProblem } from '../ingest-problem.js';
import { openIngestRoots } from '../ingest-roots.js';
import type { SharedIngestRoots } from '../ingest-roots.js';
import { LockBatch } from '../lock-batch.js';
import type {
  ObjectWriteRequest,
  ObjectWriterAnswer,
  ObjectWriterRequest,
  PlaceAnswer,
  PlaceRequest,
} from './object-writer-message.js';

/** What one stream's placements hold open here, until it ends. */
interface Session {
  readonly projectDir: string;
  readonly durability: 'fsync' | 'none';
  readonly roots: SharedIngestRoots;
  /** The batch of the stream's current hold of the workspace lock, without durability. */
  readonly batch: LockBatch;
  objects: Promise<ObjectStore | undefined> | undefined;
  /** Placed files whose objects are still to be stored, oldest first. */
  readonly backlog: Uint8Array[];
  /** The backlog being stored; settles once it is empty. */
  storing: Promise<void> | undefined;
  /** Set once the stream's records store objects from the first file: the backlog is then stored from its last. */
  fromLast: boolean;
}

const sessions = new Map<number, Session>();

/**
 * The placed files' bytes the thread holds waiting to be stored as objects, all sessions together, at most: its
 * heap is small.
 */
const MAX_BACKLOG_BYTES = 8 * 1024 * 1024;
let backlogBytes = 0;

/**
 * How long after the last placement the thread waits before it stores an object (unless the stream's records have
 * started): while a stream sends blocks faster than this, the thread only places them.
 */
const QUIET_MS = 2;
let lastPlacedAt = 0;

/** Stores one batch; the store is opened for it and closed after, so no folder of a removed project stays open. */
async function store(request: ObjectWriteRequest): Promise<number> {
  const contents: Uint8Array[] = [];
  let at = 0;
  for (const length of request.lengths) {
    contents.push(request.bytes.subarray(at, at + length));
    at += length;
  }
  const objects = await openObjectStore(request.projectDir, { durability: request.durability });
  try {
    await objects.putAll(contents);
  } finally {
    await objects.close();
  }
  return contents.length;
}

/** Places one block as the stream would on its own thread (see `StreamingIngest.judge`). */
async function place(request: PlaceRequest): Promise<PlaceAnswer> {
  let session = sessions.get(request.session);
  if (session === undefined) {
    const roots = openIngestRoots(request.projectDir);
    session = {
      projectDir: request.projectDir,
      durability: request.durability,
      roots,
      batch: new LockBatch(roots, request.durability),
      objects: undefined,
      backlog: [],
      storing: undefined,
      fromLast: false,
    };
    sessions.set(request.session, session);
  }
  const problems: IngestProblem[] = [];
  const applied = await applyPlans(
    [request.plan],
    {
      roots: session.roots,
      dryRun: false,
      durability: request.durability,
      digestReplaced: request.digestReplaced,
      ...(await session.batch.options()),
    },
    (code, message) => problems.push({ code, message }),
  );
  lastPlacedAt = performance.now();
  const [content] = applied.contents;
  // Past MAX_BACKLOG_BYTES (a thread slower than the stream), the records store the object.
  if (
    request.storeObject &&
    content !== undefined &&
    backlogBytes + content.bytes.byteLength <= MAX_BACKLOG_BYTES
  ) {
    session.backlog.push(content.bytes);
    backlogBytes += content.bytes.byteLength;
    session.storing ??= storeBacklog(session);
  }
  return {
    blocks: applied.blocks,
    contents: applied.contents.map(({ workspacePath, lang, status, code }) => ({
      workspacePath,
      lang,
      status,
      code,
    })),
    replaced: applied.replaced === undefined ? undefined : [...applied.replaced],
    problems,
  };
}

/**
 * Stores the session's placed files as objects, one per turn of the event loop once no block has come for
 * {@link QUIET_MS} (a block waits for no object), until none is left: from the first, and once the stream's
 * records store them from the first too, at once and from the last, so the two meet (an object both store is
 * written twice, the same bytes; each write is atomic). The records store whatever is not stored here.
 */
async function storeBacklog(session: Session): Promise<void> {
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Blocks first: an object waits until no block has come for QUIET_MS, or the records have started.
    while (!session.fromLast && performance.now() - lastPlacedAt < QUIET_MS)
      await new Promise<void>((resolve) => setTimeout(resolve, QUIET_MS));
    const bytes = session.fromLast ? session.backlog.pop() : session.backlog.shift();
    if (bytes === undefined) break;
    backlogBytes -= bytes.byteLength;
    session.objects ??= openObjectStore(session.projectDir, { durability: session.durability }).catch(
      () => undefined,
    );
    const objects = await session.objects;
    // No store to be had: the records write the objects.
    if (objects === undefined) dropBacklog(session);
    else await objects.putAll([bytes]).catch(() => undefined);
  }
  session.storing = undefined;
}

function dropBacklog(session: Session): void {
  for (const bytes of session.backlog) backlogBytes -= bytes.byteLength;
  session.backlog.length = 0;
}

async function endSession(id: number): Promise<void> {
  const session = sessions.get(id);
  sessions.delete(id);
  if (session === undefined) return;
  dropBacklog(session);
  await session.storing;
  await session.batch.finish().catch(() => undefined);
  await session.roots.close().catch(() => undefined);
  await session.objects?.then((objects) => objects?.close()).catch(() => undefined);
}

async function serve(request: ObjectWriterRequest): Promise<ObjectWriterAnswer> {
  switch (request.kind) {
    case 'objects':
      return store(request);
    case 'place':
      return place(request);
    case 'finish-batch':
      await sessions
        .get(request.session)
        ?.batch.finish()
        .catch(() => undefined);
      return null;
    case 'records-starting': {
      const session = sessions.get(request.session);
      if (session !== undefined) session.fromLast = true;
      return null;
    }
    case 'end-session':
      await endSession(request.session);
      return null;
  }
}

serveDeadlineWorker(serve);
