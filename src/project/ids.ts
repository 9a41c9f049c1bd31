import { CodedError } from './coded-error.js';
import * as z from 'zod';
import { findSecret, redactSecrets } from './find-secret.js';
import { ID_PATTERN, ID_RULE } from './id-pattern.js';

// An id names folders and files and is written into every record, so one that holds a secret is refused
// (docs/security.md, "Secrets").
/** Why an id that holds a secret is refused, for messages. */
export const SECRET_IN_ID =
  'holds what looks like a credential; an id names files and records, so choose another';

/** Schema of a run id: the id pattern, branded so a checked id cannot be confused with any string. */
export const runIdSchema = z
  .string()
  .regex(ID_PATTERN, ID_RULE)
  .refine((id) => findSecret(id) === undefined, SECRET_IN_ID)
  .brand<'RunId'>();

/** Schema of a node (or workflow step) id. */
export const nodeIdSchema = z
  .string()
  .regex(ID_PATTERN, ID_RULE)
  .refine((id) => findSecret(id) === undefined, SECRET_IN_ID)
  .brand<'NodeId'>();

/** A run id, checked once at the edge (CLI, MCP, library entry) and trusted after that. */
export type RunId = z.infer<typeof runIdSchema>;

/** A node (or workflow step) id, checked once at the edge. */
export type NodeId = z.infer<typeof nodeIdSchema>;

/** Why a text is not an id: thrown by {@link parseRunId} and {@link parseNodeId}. */
export class InvalidIdError extends CodedError<'invalid_id'> {
  override readonly name = 'InvalidIdError';
  constructor(
    /** What the id was for, as the user wrote it: `run id`, `--node-id`. */
    readonly what: string,
    /** The text as given, with any secret in it redacted. */
    readonly value: string,
  ) {
    const secret = findSecret(value);
    // Said without echoing the secret: the message is printed and may be recorded.
    super(
      'invalid_id',
      secret === undefined
        ? `${what} ${JSON.stringify(value)} ${ID_RULE}`
        : `${what} ${JSON.stringify(redactSecrets(value))} ${SECRET_IN_ID} (it looks like a ${secret.family})`,
    );
    this.value = redactSecrets(value);
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
  return runIdSchema.safeParse(value).success;
}

/** True when `value` is a valid node id (narrowing it). */
export function isNodeId(value: string): value is NodeId {
  return nodeIdSchema.safeParse(value).success;
}
