import type { IngestedContent } from '../apply-plans.js';
import type { BlockOutcome } from '../block-outcome.js';
import type { IngestProblem } from '../ingest-problem.js';
import type { BlockPlan } from '../plan-blocks.js';

/**
 * What the object writer thread is asked: store the objects of a batch in the files object store of the project
 * at `projectDir`. The batch's bytes come as one buffer of its own, the objects one after another in it, `lengths`
 * long (a file's bytes may be a view of a larger buffer, Node's pool, which a message would carry whole).
 */
export interface ObjectWriteRequest {
  readonly kind: 'objects';
  readonly projectDir: string;
  readonly durability: 'fsync' | 'none';
  readonly bytes: Uint8Array;
  readonly lengths: readonly number[];
}

/**
 * Place one cleared block's file in a project's workspace/ for a streaming ingest (D135), as the stream itself
 * would: `applyPlans` on the thread's own roots of the project, opened once per `session` (one stream). Without
 * durability the writes of one hold of the workspace lock share a batch, finished by a {@link FinishBatchRequest}.
 */
export interface PlaceRequest {
  readonly kind: 'place';
  /** The stream's session: its roots (and batch, and object store) stay open until {@link EndSessionRequest}. */
  readonly session: number;
  readonly projectDir: string;
  readonly durability: 'fsync' | 'none';
  /** Not an edit block (those stay on the stream's thread): `bytes` are the file's. */
  readonly plan: BlockPlan & { readonly kind: 'write' };
  /** Report what the path held before (the stream's first write of it). */
  readonly digestReplaced: boolean;
  /**
   * Also store the placed bytes as an object of the project's files store, as the records will (D134): after the
   * placements waiting (see {@link RecordsStartingRequest}).
   */
  readonly storeObject: boolean;
}

/** Finish the session's shared batch (the stream lets the workspace lock go). */
export interface FinishBatchRequest {
  readonly kind: 'finish-batch';
  readonly session: number;
}

/** The stream's records start storing objects, from its first file: the thread goes on from the last. */
export interface RecordsStartingRequest {
  readonly kind: 'records-starting';
  readonly session: number;
}

/** Close what the session holds open (the stream has ended); objects not yet stored are left to the records. */
export interface EndSessionRequest {
  readonly kind: 'end-session';
  readonly session: number;
}

export type ObjectWriterRequest =
  ObjectWriteRequest | PlaceRequest | FinishBatchRequest | RecordsStartingRequest | EndSessionRequest;

/**
 * How the thread placed a block: `applyPlans`' outcome, the content (without its bytes: they are the plan's), what
 * the path held before, and the problems it reported.
 */
export interface PlaceAnswer {
  readonly blocks: readonly BlockOutcome[];
  readonly contents: readonly Omit<IngestedContent, 'bytes'>[];
  readonly replaced: readonly (readonly [number, string | null])[] | undefined;
  readonly problems: readonly IngestProblem[];
}

/** What the thread answers: objects stored, a placement, or nothing (a session's batch finished or ended). */
export type ObjectWriterAnswer = number | PlaceAnswer | null;
