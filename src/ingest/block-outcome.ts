import type { EventLevel } from '../events/index.js';
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
  readonly status: ArtifactStatus;
  readonly code: ReasonCode | null;
  /** Why, in words ('' when `code` is null); secrets already redacted. */
  readonly message: string;
}

/** The manifest entry of a block outcome: the only place its `reason` string (`code: message`) is made. */
export function manifestArtifactOf(outcome: BlockOutcome): ManifestArtifact {
  return {
    index: outcome.index,
    lang: outcome.lang,
    declared_file: outcome.declaredFile,
    workspace_path: outcome.workspacePath,
    bytes: outcome.bytes,
    sha256: outcome.sha256,
    status: outcome.status,
    reason: outcome.code === null ? '' : `${outcome.code}: ${outcome.message}`,
  };
}

/**
 * The level of a block's `ingest.block` event, from its status: refusals ERROR; losses (a skipped block)
 * WARNING, except a block already on disk or replaced by a later one; written (or would be) INFO.
 */
export function eventLevelOf(outcome: BlockOutcome): EventLevel {
  if (outcome.code === null) return 'INFO';
  switch (statusOfReason(outcome.code)) {
    case 'rejected':
      return 'ERROR';
    case 'written':
      return 'INFO';
    case 'skipped':
      return outcome.code === 'unchanged' || outcome.code === 'superseded' ? 'INFO' : 'WARNING';
  }
}
