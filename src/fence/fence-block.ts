import type { FenceParser } from '../project/index.js';

/** Why a candidate block cannot be ingested as written (spec ingest.md sections 1-2). */
export type FenceFormatCode =
  | 'missing_lang'
  | 'lang_colon_path'
  | 'invalid_lang'
  | 'missing_file'
  | 'unsupported_key'
  | 'quoted_path'
  | 'extra_attributes'
  | 'empty_path'
  | 'tilde_fence'
  | 'unterminated'
  | 'ambiguous_nesting';

/** The parser's judgement of one block: valid, or skipped with a format code and a message saying what to fix. */
export type FenceVerdict =
  | { readonly valid: true }
  | { readonly valid: false; readonly code: FenceFormatCode; readonly message: string };

/** One fenced code block found by CommonMark parsing. */
export interface FenceBlock {
  /** Index among candidates in document order, from 0; -1 for a non-candidate (only with `all: true`). */
  readonly index: number;
  /**
   * True when the decoded info string contains `=` (the author attached attributes) or starts with a
   * `<lang>:<path>` word (`ts:src/x.ts`, D95).
   */
  readonly candidate: boolean;
  /** First word of the info string; '' when the info string starts with an attribute or is empty. */
  readonly lang: string;
  /** The value after `file=` exactly as written; '' when there is no `file=` attribute. */
  readonly declaredFile: string;
  /** The info string as CommonMark gives it: escapes and character references decoded, trimmed. */
  readonly info: string;
  /** The info string exactly as it stands in the source line, trimmed. */
  readonly rawInfo: string;
  readonly fenceChar: '`' | '~';
  /** Length of the opening fence run (3 or more). */
  readonly fenceLength: number;
  /** The block's content as CommonMark defines it, container prefixes removed, line endings kept. */
  readonly content: string;
  /** Whether a closing fence ended the block (false: its container or the document ended first). */
  readonly closed: boolean;
  /** 1-based line of the opening fence. */
  readonly startLine: number;
  /** 1-based line of the closing fence, or of the block's last line when it was not closed. */
  readonly endLine: number;
  readonly verdict: FenceVerdict;
}

/**
 * How a candidate past `maxCandidates` is counted: `artifact` for a ```` ```json artifact=<type> ```` contract
 * block (whatever its verdict), else its verdict: `valid` or the format code that skips it.
 */
export type OmittedCandidateKind = FenceFormatCode | 'valid' | 'artifact';

/** The candidates past `maxCandidates`: judged and counted, never kept (their content is never held). */
export interface OmittedCandidates {
  /** How many candidates came after the first `maxCandidates`. */
  readonly count: number;
  /** The same candidates counted by kind; the counts add up to `count`. */
  readonly byKind: Readonly<Partial<Record<OmittedCandidateKind, number>>>;
}

/** The result of scanning one markdown document. */
export interface FenceScan {
  /** Candidate blocks in document order (every fenced block when scanned with `all: true`). */
  readonly blocks: readonly FenceBlock[];
  /** Present when the document held more than `maxCandidates` candidates: those past it, counted. */
  readonly omitted?: OmittedCandidates;
  /** False when a cheap pre-check proved that the text holds no candidate and no block parser was run. */
  readonly parsed: boolean;
  /** Present when parsing overran `timeLimitMs`: the scan was abandoned and `blocks` is empty. */
  readonly timedOut?: true;
}

/** Options for {@link parseFences}. */
export interface ParseFencesOptions {
  /** Return every fenced code block, not only candidates (used by the CommonMark oracle and `--explain`). */
  readonly all?: boolean;
  /**
   * Abandon the scan when parsing takes longer than this many milliseconds. Some hostile documents make
   * CommonMark parsing superlinear (lazy continuation lines in quotes, thousands of list markers on a line);
   * a host that must not stall sets a limit and treats `timedOut` as "not ingested". Default: no limit.
   */
  readonly timeLimitMs?: number;
  /**
   * Which block parser finds the fences: `'scanner'` (the default: a one-pass CommonMark block scanner, linear
   * in the input) or `'micromark'` (the reference path it is checked against, which returns the same blocks).
   */
  readonly parser?: FenceParser;
  /**
   * Keep at most this many candidates in `blocks`; later ones are judged and counted in `omitted`, so a document
   * of a million candidates costs what one of this many does. Default: keep every candidate.
   */
  readonly maxCandidates?: number;
}
