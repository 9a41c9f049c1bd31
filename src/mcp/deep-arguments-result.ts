import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describeFieldErrors, fieldError, formatFieldPath } from '../contracts/index.js';
import { MAX_MESSAGE_DEPTH } from './mcp-limits.js';
import { submitArtifactRefusal } from './submit-artifact-tool.js';

/** What the refusal says the limit is, in the words of a field error's `expected`. */
export const NESTING_LIMIT = `JSON nested at most ${String(MAX_MESSAGE_DEPTH)} levels deep (objects and arrays, counted from the JSON-RPC message)`;

/**
 * The answer to a `tools/call` whose arguments nest deeper than `MAX_MESSAGE_DEPTH`: an `isError` result (MCP
 * reports invalid tool arguments as a tool error, as the SDK does) naming the argument's path and the limit. A
 * `submit_artifact` payload gets the canonical refusal, a field error like every other problem of a payload.
 */
export function deepArgumentsResult(
  tool: string,
  path: readonly (string | number)[],
  args: unknown,
): CallToolResult {
  if (tool === 'submit_artifact' && path[0] === 'payload') {
    const type = typeof args === 'object' && args !== null && 'type' in args ? args.type : undefined;
    const typeName = typeof type === 'string' ? type.slice(0, 100) : 'submitted';
    const errors = [fieldError(path.slice(1), NESTING_LIMIT, 'deeper')];
    return submitArtifactRefusal('invalid_artifact', describeFieldErrors(typeName, errors), errors);
  }
  return {
    content: [
      {
        type: 'text',
        text: `Invalid arguments for tool ${tool.slice(0, 100)}: ${formatFieldPath(path)} is nested more than ${String(MAX_MESSAGE_DEPTH)} levels deep (objects and arrays, counted from the JSON-RPC message); send it flatter, or as a JSON string`,
      },
    ],
    isError: true,
  };
}
