import * as z from 'zod';
import { ID_PATTERN, ID_RULE } from './id-pattern.js';

/** Schema of a run id: the id pattern, branded so a checked id cannot be confused with any string. */
export const runIdSchema = z.string().regex(ID_PATTERN, ID_RULE).brand<'RunId'>();

/** Schema of a node (or workflow step) id. */
export const nodeIdSchema = z.string().regex(ID_PATTERN, ID_RULE).brand<'NodeId'>();

/** A run id, checked once at the edge (CLI, MCP, library entry) and trusted after that. */
export type RunId = z.infer<typeof runIdSchema>;

/** A node (or workflow step) id, checked once at the edge. */
export type NodeId = z.infer<typeof nodeIdSchema>;

/** Why a text is not an id: thrown by {@link parseRunId} and {@link parseNodeId}. */
export class InvalidIdError extends Error {
  override readonly name = 'InvalidIdError';
  readonly code = 'invalid_id';
  constructor(
    /** What the id was for, as the user wrote it: `run id`, `--node-id`. */
    readonly what: string,
    readonly value: string,
  ) {
    super(`${what} ${JSON.stringify(value)} ${ID_RULE}`);
  }
}

/** Checks a run id; throws {@link InvalidIdError} naming `what` (default `run id`). */
export function parseRunId(value: string, what = 'run id'): RunId {
  const parsed = runIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidIdError(what, value);
  return parsed.data;
}

/** Checks a node id; throws {@link InvalidIdError} naming `what` (default `node id`). */
export function parseNodeId(value: string, what = 'node id'): NodeId {
  const parsed = nodeIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidIdError(what, value);
  return parsed.data;
}

/** True when `value` is a valid run id (narrowing it). */
export function isRunId(value: string): value is RunId {
  return ID_PATTERN.test(value);
}

/** True when `value` is a valid node id (narrowing it). */
export function isNodeId(value: string): value is NodeId {
  return ID_PATTERN.test(value);
}
