import type { FenceFormatCode } from '../fence/index.js';
import type { FilesystemRefusalCode, PathRuleCode } from '../workspace/index.js';

/** Codes the ingest itself decides, beyond the parser's format codes and the writer's path codes. */
export type IngestPolicyCode =
  | 'dry_run'
  | 'superseded'
  | 'unchanged'
  | 'too_large'
  | 'too_many_blocks'
  | 'case_collision'
  | 'io_error'
  | 'contract_block'
  | 'patch_does_not_apply';

/** Every reason code a manifest entry can start with: a closed set, documented in docs/reason-codes.md. */
export type ReasonCode = FenceFormatCode | PathRuleCode | FilesystemRefusalCode | IngestPolicyCode;

/** Manifest entry status (spec ingest.md section 2). */
export type ArtifactStatus = 'written' | 'skipped' | 'rejected';

/**
 * The status a reason code implies: `dry_run` is a block that would be written, format and policy codes skip,
 * security and validation codes reject.
 */
export function statusOfReason(code: ReasonCode): ArtifactStatus {
  switch (code) {
    // A dry run judges a block exactly as a real ingest would; only the write itself is left out.
    case 'dry_run':
      return 'written';
    case 'missing_lang':
    case 'lang_colon_path':
    case 'invalid_lang':
    case 'missing_file':
    case 'unsupported_key':
    case 'quoted_path':
    case 'extra_attributes':
    case 'empty_path':
    case 'tilde_fence':
    case 'unterminated':
    case 'ambiguous_nesting':
    case 'superseded':
    case 'unchanged':
    case 'too_large':
    case 'too_many_blocks':
    case 'io_error':
    case 'contract_block':
      return 'skipped';
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
    case 'secret_in_path':
    case 'case_collision':
    case 'symlink':
    case 'not_a_directory':
    case 'is_a_directory':
    case 'not_a_regular_file':
    case 'patch_does_not_apply':
      return 'rejected';
  }
}

/** Every reason code, in documentation order (used by docs and tests to prove the list is closed). */
export const REASON_CODES: readonly ReasonCode[] = [
  'dry_run',
  'missing_lang',
  'lang_colon_path',
  'invalid_lang',
  'missing_file',
  'unsupported_key',
  'quoted_path',
  'extra_attributes',
  'empty_path',
  'tilde_fence',
  'unterminated',
  'ambiguous_nesting',
  'superseded',
  'unchanged',
  'too_large',
  'too_many_blocks',
  'io_error',
  'contract_block',
  'absolute_path',
  'drive_letter',
  'unc_path',
  'backslash',
  'colon',
  'traversal',
  'control_char',
  'reserved_name',
  'invalid_unicode',
  'too_long',
  'git_dir',
  'secret_in_path',
  'case_collision',
  'symlink',
  'not_a_directory',
  'is_a_directory',
  'not_a_regular_file',
  'patch_does_not_apply',
];
