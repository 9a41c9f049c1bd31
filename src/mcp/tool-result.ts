import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ConfigError } from '../config/index.js';
import {
  describeError,
  InvalidIdError,
  redactJson,
  redactSecrets,
  UnknownRunError,
} from '../project/index.js';
import { RunError } from '../runtime/index.js';
import { ObserveError, WorkflowError, WorkflowStateError } from '../workflow/index.js';
import { boundReply } from './bound-reply.js';

/**
 * A tool's success: the value as `structuredContent` and the same JSON as text (spec workflow-mcp.md), every
 * string but paths, hashes and ids passed through the one redaction (docs/security.md, "Secrets"), then bounded
 * to one reply's size (`boundReply`, after the redaction so that no cut can split a secret out of its pattern).
 */
export function toolResult(value: object): CallToolResult {
  const redacted = boundReply(redactJson(value));
  return {
    content: [{ type: 'text', text: JSON.stringify(redacted, null, 2) }],
    structuredContent: redacted as Record<string, unknown>,
  };
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
