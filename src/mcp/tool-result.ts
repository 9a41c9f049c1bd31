import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../config/index.js';
import { describeError, InvalidIdError, redactSecrets, UnknownRunError } from '../project/index.js';
import { RunError } from '../runtime/index.js';
import { ObserveError, WorkflowError, WorkflowStateError } from '../workflow/index.js';
import { boundReply } from './bound-reply.js';

/**
 * A tool's success: the value as `structuredContent` and the same JSON as text (spec workflow-mcp.md), every
 * string and key passed through the one redaction (docs/security.md, "Secrets"), then bounded to one reply's size
 * (`boundReply`, after the redaction so that no cut can split a secret out of its pattern).
 */
export function toolResult(value: object): CallToolResult {
  const redacted = boundReply(redactEveryString(value) as Record<string, unknown>);
  return {
    content: [{ type: 'text', text: JSON.stringify(redacted, null, 2) }],
    structuredContent: redacted,
  };
}

/**
 * The MCP edge's redaction, applied to every tool result the server sends: each text item and every string and
 * key of `structuredContent` through `redactSecrets`, paths included (a refused path is echoed as the agent gave
 * it, and may hold the very credential it was refused for), as the CLI redacts all it prints.
 */
export function redactToolResult(result: CallToolResult): CallToolResult {
  return {
    ...result,
    content: result.content.map((item) =>
      item.type === 'text' ? { ...item, text: redactSecrets(item.text) } : item,
    ),
    ...(result.structuredContent === undefined
      ? {}
      : { structuredContent: redactEveryString(result.structuredContent) as Record<string, unknown> }),
  };
}

/** A copy of a JSON value with every string and object key passed through `redactSecrets`. */
function redactEveryString(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactEveryString);
  if (value === null || typeof value !== 'object') return value;
  // No prototype: a key named '__proto__' stays a key.
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, item] of Object.entries(value)) copy[redactSecrets(key)] = redactEveryString(item);
  return copy;
}

/** Whether an error is one the engine expects (bad input, a refused call), whose message says what to do. */
export function isExpectedError(error: unknown): error is Error {
  return (
    error instanceof WorkflowError ||
    error instanceof WorkflowStateError ||
    error instanceof ConfigError ||
    error instanceof InvalidIdError ||
    error instanceof UnknownRunError ||
    error instanceof ObserveError ||
    error instanceof RunError
  );
}

/**
 * A tool's failure as an `isError` result: an expected error's message as it is; an unexpected one's message
 * only (never a stack, which would leak paths and says nothing the agent can act on).
 */
export function toolError(error: unknown): CallToolResult {
  const text = isExpectedError(error)
    ? error.message
    : `internal error: ${describeError(error)}; the server log (stderr) has the details, please report it`;
  return { content: [{ type: 'text', text: redactSecrets(text) }], isError: true };
}
