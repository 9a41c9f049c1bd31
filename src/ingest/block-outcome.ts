import type { EventLevel } from '../events/index.js';
import type { ManifestArtifact } from './ingest-manifest.js';
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

/** The level of a block's `ingest.block` event: informational outcomes are INFO, refusals ERROR, losses WARNING. */
export function eventLevelOf(outcome: BlockOutcome): EventLevel {
  if (outcome.code === null) return 'INFO';
  switch (outcome.code) {
    case 'dry_run':
    case 'unchanged':
    case 'superseded':
      return 'INFO';
    case 'missing_lang':
    case 'invalid_lang':
    case 'missing_file':
    case 'unsupported_key':
    case 'quoted_path':
    case 'extra_attributes':
    case 'empty_path':
    case 'tilde_fence':
    case 'unterminated':
    case 'ambiguous_nesting':
    case 'too_large':
    case 'too_many_blocks':
    case 'io_error':
      return 'WARNING';
    case 'absolute_path':
    case 'drive_letter':
    case 'unc_path':
    case 'backslash':
    case 'colon':
    case 'traversal':
    case 'control_char':
    case 'reserved_name':
    case 'invalid_unicode':
    case 'too_long':
    case 'git_dir':
    case 'case_collision':
    case 'symlink':
    case 'not_a_directory':
    case 'is_a_directory':
    case 'not_a_regular_file':
      return 'ERROR';
  }
}
