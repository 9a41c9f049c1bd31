import {
  ClientNotificationSchema,
  ClientRequestSchema,
  ErrorCode,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { formatFieldPath } from '../contracts/index.js';

/** What a message claims to be: what it gets back when it is refused depends on it. */
export type MessageKind = 'request' | 'notification' | 'response' | 'unknown';

/** A message refused before the server sees it: the JSON-RPC error code and a message that says what to send. */
export interface RefusedMessage {
  readonly ok: false;
  readonly kind: MessageKind;
  /** The request's id, when it has a valid one (the refusal is then its answer); else null. */
  readonly id: RequestId | null;
  readonly method?: string;
  readonly code: ErrorCode.InvalidRequest | ErrorCode.InvalidParams;
  readonly message: string;
}

/** A parsed line judged: a message the server can take, or why not. */
export type MessageCheck =
  | { readonly ok: true; readonly kind: Exclude<MessageKind, 'unknown'>; readonly message: JSONRPCMessage }
  | RefusedMessage;

const SHAPE = 'one JSON-RPC 2.0 request, notification or response';
/** The most schema problems named in one refusal. */
const MAX_ISSUES = 5;

// The SDK's schema of each request and notification a client may send, by method, for their params.
const requestSchemas = schemasByMethod(ClientRequestSchema.options);
const notificationSchemas = schemasByMethod(ClientNotificationSchema.options);

/**
 * Judges one parsed line as a JSON-RPC 2.0 message the way MCP restricts it (an id is a string or an integer,
 * never null; params is an object), then with the SDK's own schemas, including the params of each method the
 * server knows: what fails here would otherwise be dropped by the SDK without an answer, or answered -32603.
 */
export function checkJsonRpcMessage(value: unknown): MessageCheck {
  if (Array.isArray(value)) {
    return refuse(
      'unknown',
      null,
      ErrorCode.InvalidRequest,
      `a JSON-RPC batch (a list of messages) is not accepted: MCP removed batches in protocol version 2025-06-18 and this server takes none; send one message per line`,
    );
  }
  if (!isObject(value)) {
    return refuse(
      'unknown',
      null,
      ErrorCode.InvalidRequest,
      `a message is a JSON object (${SHAPE}), got ${kindOf(value)}`,
    );
  }
  const kind: Exclude<MessageKind, 'unknown'> | undefined =
    'method' in value
      ? 'id' in value
        ? 'request'
        : 'notification'
      : 'result' in value || 'error' in value
        ? 'response'
        : undefined;
  const id = 'id' in value ? requestId(value.id) : null;
  if ('id' in value && id === undefined) {
    return refuse(
      kind ?? 'unknown',
      null,
      ErrorCode.InvalidRequest,
      `id must be a string or an integer (MCP allows no null id), got ${kindOf(value.id)}`,
    );
  }
  const knownId = id ?? null;
  if (kind === undefined) {
    return refuse(
      'unknown',
      knownId,
      ErrorCode.InvalidRequest,
      `the message has no method: send ${SHAPE} (a request has "jsonrpc", "id", "method" and "params")`,
    );
  }
  if (value.jsonrpc !== '2.0') {
    return refuse(
      kind,
      knownId,
      ErrorCode.InvalidRequest,
      `"jsonrpc": "2.0" is required, got ${describe(value.jsonrpc)}`,
    );
  }
  if (kind === 'response') return checkResponse(value, knownId);
  if (typeof value.method !== 'string') {
    return refuse(
      kind,
      knownId,
      ErrorCode.InvalidRequest,
      `method must be a string, got ${kindOf(value.method)}`,
    );
  }
  const method = value.method;
  if ('params' in value && !isObject(value.params)) {
    return Array.isArray(value.params)
      ? refuse(
          kind,
          knownId,
          ErrorCode.InvalidParams,
          `params must be an object (MCP passes parameters by name), got a list`,
          method,
        )
      : refuse(
          kind,
          knownId,
          ErrorCode.InvalidRequest,
          `params must be an object, got ${kindOf(value.params)}`,
          method,
        );
  }
  const envelope = (kind === 'request' ? JSONRPCRequestSchema : JSONRPCNotificationSchema).safeParse(value);
  if (!envelope.success) return refuseIssues(kind, knownId, envelope.error.issues, method);
  const schema = (kind === 'request' ? requestSchemas : notificationSchemas).get(method);
  // A method the server does not know passes: the SDK answers it "Method not found" (-32601).
  const params = schema?.safeParse({ method, params: value.params });
  if (params !== undefined && !params.success)
    return refuseIssues(kind, knownId, params.error.issues, method);
  return { ok: true, kind, message: envelope.data };
}

function checkResponse(value: Record<string, unknown>, id: RequestId | null): MessageCheck {
  const parsed = ('error' in value ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema).safeParse(
    value,
  );
  if (!parsed.success) return refuseIssues('response', id, parsed.error.issues, undefined);
  return { ok: true, kind: 'response', message: parsed.data };
}

/** Refuses with the schema's issues: -32602 when all of them are in params, else -32600. */
function refuseIssues(
  kind: Exclude<MessageKind, 'unknown'>,
  id: RequestId | null,
  issues: readonly z.core.$ZodIssue[],
  method: string | undefined,
): RefusedMessage {
  const inParams = issues.every((issue) => issue.path[0] === 'params');
  const described = issues.slice(0, MAX_ISSUES).map(describeIssue);
  const more = issues.length > MAX_ISSUES ? ` (and ${String(issues.length - MAX_ISSUES)} more)` : '';
  const what = method === undefined ? 'the message' : `the ${JSON.stringify(method.slice(0, 100))} message`;
  return refuse(
    kind,
    id,
    inParams ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest,
    `${what} does not match its schema: ${described.join('; ')}${more}`,
    method,
  );
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => JSON.stringify(key.slice(0, 100))).join(', ');
    return `${issue.path.length === 0 ? 'the message' : formatFieldPath(issue.path)} has unknown keys ${keys}`;
  }
  return `${formatFieldPath(issue.path)}: ${issue.message}`;
}

function refuse(
  kind: MessageKind,
  id: RequestId | null,
  code: RefusedMessage['code'],
  message: string,
  method?: string,
): RefusedMessage {
  return { ok: false, kind, id, code, message, ...(method === undefined ? {} : { method }) };
}

function schemasByMethod(options: readonly z.ZodType[]): Map<string, z.ZodType> {
  const byMethod = new Map<string, z.ZodType>();
  for (const schema of options) {
    const literal = (schema as unknown as { shape: { method: { value: string } } }).shape.method.value;
    byMethod.set(literal, schema);
  }
  return byMethod;
}

function requestId(value: unknown): RequestId | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value;
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'a number' : `the number ${String(value)}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 100)) : kindOf(value);
}
