import type { FenceParser } from '../../project/index.js';

/** What the parent sends the fence parse worker: one document (strings are copied by structured clone). */
export interface FenceParseRequest {
  readonly text: string;
  readonly all: boolean;
  /** The block parser; undefined for the default. */
  readonly parser: FenceParser | undefined;
  /** Candidates kept past which the rest are only counted; undefined: keep all. */
  readonly maxCandidates: number | undefined;
}
