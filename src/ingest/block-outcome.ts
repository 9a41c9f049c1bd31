import type { EventFields, EventLevel } from '../events/index.js';
import { warningText } from './block-warning.js';
import type { BlockWarning } from './block-warning.js';
import type { ManifestArtifact } from './ingest-manifest.js';
import { statusOfReason } from './reason-code.js';
import type { ArtifactStatus, ReasonCode } from './reason-code.js';

/** How one candidate block ended, with its reason as data: a code (null when simply written) and a message. */
export interface BlockOutcome {
  /** The block's position among the document's candidates. */
  readonly index: number;
  /** The fence's lang ('' when the fence named none). */
  readonly lang: string;
  /** The `file=` value as written in the document. */
  readonly declaredFile: string;
  /** Project-relative `workspace/<path>`, or '' when the path itself was refused. */
  readonly workspacePath: string;
  readonly bytes: number;
  readonly sha256: string;
  /** On an edit block (lang diff/patch naming a file to patch): the SHA-256 of its patch text; `bytes` and `sha256` are then the patched file's. */
  readonly patchSha256?: string;
  readonly status: ArtifactStatus;
  readonly code: ReasonCode | null;
  /** Why, in words ('' when `code` is null); secrets already redacted. */
  readonly message: string;
  /** Present on the one outcome that stands for every candidate past `max_blocks`: how many, by reason. */
  readonly omitted?: OmittedBlocks;
  /** Present when the block follows the rules but likely not its author's intent (D97); never empty. */
  readonly warnings?: readonly BlockWarning[];
}

/** The candidates of a document past `max_blocks`: counted, never listed (issue 23). */
export interface OmittedBlocks {
  /** How many candidates came after the first `max_blocks`. */
  readonly count: number;
  /** The same candidates by the reason each would have had alone, most frequent first; adds up to `count`. */
  readonly byReason: Readonly<Partial<Record<ReasonCode, number>>>;
}

/** The manifest entry of a block outcome: the only place its `reason` string (`code: message`) is made. */
export function manifestArtifactOf(outcome: BlockOutcome): ManifestArtifact {
  const entry: ManifestArtifact = {
    index: outcome.index,
    lang: outcome.lang,
    declared_file: outcome.declaredFile,
    workspace_path: outcome.workspacePath,
    bytes: outcome.bytes,
    sha256: outcome.sha256,
    status: outcome.status,
    reason: outcome.code === null ? '' : `${outcome.code}: ${outcome.message}`,
  };
  // Only an entry with a patch or a warning has the key: every other entry stays as manifest v1 has always written it.
  const patched = outcome.patchSha256 === undefined ? entry : { ...entry, patch_sha256: outcome.patchSha256 };
  return outcome.warnings === undefined
    ? patched
    : { ...patched, warnings: outcome.warnings.map(warningText) };
}

/**
 * The fields of a block's `ingest.block` event: its manifest entry and, for the entry standing for the candidates
 * past `max_blocks`, `omitted` (how many) and `omitted_by_reason`.
 */
export function blockEventFields(outcome: BlockOutcome): EventFields {
  const entry = manifestArtifactOf(outcome);
  if (outcome.omitted === undefined) return { ...entry };
  return { ...entry, omitted: outcome.omitted.count, omitted_by_reason: { ...outcome.omitted.byReason } };
}

/** How many candidates an outcome stands for: one, or every candidate past `max_blocks` for their entry. */
export function candidatesOf(outcome: BlockOutcome): number {
  return outcome.omitted?.count ?? 1;
}

/**
 * The level of a block's `ingest.block` event, from its status: refusals ERROR; losses (a skipped block)
 * WARNING, except a block already on disk or replaced by a later one; written (or would be) INFO; and WARNING
 * for any entry that is not ERROR but carries a warning.
 */
export function eventLevelOf(outcome: BlockOutcome): EventLevel {
  const level = levelOfReason(outcome.code);
  return level === 'INFO' && outcome.warnings !== undefined ? 'WARNING' : level;
}

function levelOfReason(code: ReasonCode | null): EventLevel {
  if (code === null) return 'INFO';
  switch (statusOfReason(code)) {
    case 'rejected':
      return 'ERROR';
    case 'written':
      return 'INFO';
    case 'skipped':
      return code === 'unchanged' || code === 'superseded' ? 'INFO' : 'WARNING';
  }
}
