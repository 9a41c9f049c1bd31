import type { FenceParser } from '../../project/index.js';
import type { FenceScan } from '../../fence/index.js';

/** What the parent sends the fence parse worker: one document (strings are copied by structured clone). */
export interface FenceParseRequest {
  readonly id: number;
  readonly text: string;
  readonly all: boolean;
  /** The block parser; undefined for the default. */
  readonly parser: FenceParser | undefined;
}

/**
 * What the worker answers: that it has loaded, or one document's scan (plain data: structured clone keeps its
 * strings, numbers, booleans and nested verdicts as they are), or the message of an unexpected throw.
 */
export type FenceParseAnswer =
  | { readonly ready: true }
  | { readonly id: number; readonly scan: FenceScan }
  | { readonly id: number; readonly error: string };
