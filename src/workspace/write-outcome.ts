/** Reason codes of the pure path rules (spec ingest.md section 2), one per rule. */
export type PathRuleCode =
  | 'empty_path'
  | 'absolute_path'
  | 'drive_letter'
  | 'unc_path'
  | 'backslash'
  | 'colon'
  | 'traversal'
  | 'control_char'
  | 'reserved_name'
  | 'invalid_unicode'
  | 'too_long'
  | 'git_dir'
  | 'secret_in_path';

/** Reason codes the writer finds on the real filesystem. */
export type FilesystemRefusalCode = 'symlink' | 'not_a_directory' | 'is_a_directory' | 'not_a_regular_file';

/** Result of the path rules: the normalized `/`-separated path, or the first rule it breaks. */
export type PathVerdict =
  | { readonly ok: true; readonly path: string }
  | { readonly ok: false; readonly code: PathRuleCode; readonly message: string };

/** What the confined writer did with one file. */
export type WriteOutcome =
  | {
      readonly status: 'written';
      readonly path: string;
      /**
       * With `digestReplaced`: the sha256 (hex) of the regular file the write replaced, or null when the path held
       * none (absent, or an entry not read, such as one swapped in after the check).
       */
      readonly replacedSha256?: string | null;
    }
  | { readonly status: 'unchanged'; readonly path: string }
  | { readonly status: 'would_write'; readonly path: string }
  | {
      readonly status: 'refused';
      readonly code: PathRuleCode | FilesystemRefusalCode;
      readonly message: string;
      /** For a filesystem refusal: the entry in the way, relative to the root (`/`-separated). */
      readonly at?: string;
    };

/** What an append of whole lines did with one file. */
export type AppendOutcome =
  | { readonly status: 'appended'; readonly path: string; readonly bytes: number }
  | {
      readonly status: 'refused';
      readonly code: PathRuleCode | FilesystemRefusalCode;
      readonly message: string;
      /** For a filesystem refusal: the entry in the way, relative to the root (`/`-separated). */
      readonly at?: string;
    };

/** The `refused` outcome alone: what every capability of the writer returns when it will not touch a path. */
export type WriteRefusal = Extract<WriteOutcome, { readonly status: 'refused' }>;

/** What a streamed write did: a write's outcome, or bytes that did not hash as expected (nothing was kept). */
export type StreamedWriteOutcome =
  | WriteOutcome
  | {
      readonly status: 'hash_mismatch';
      readonly path: string;
      /** sha256 (hex) of the bytes that streamed by. */
      readonly sha256: string;
      readonly bytes: number;
    };
