import { redactSecrets } from '../project/index.js';

/** Nesting deeper than this is written as `[Truncated]`; event fields are meant to be flat. */
const MAX_DEPTH = 8;

/**
 * Returns a JSON-safe copy of `fields` in which every string, however deeply nested (error messages,
 * stacks and causes included), has passed through `redactSecrets`, and bytes are replaced by their length.
 */
export function redactFields(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redactRecord(fields, 0, new Set());
}

function redactValue(value: unknown, depth: number, ancestors: Set<object>): unknown {
  switch (typeof value) {
    case 'string':
      return redactSecrets(value);
    case 'number':
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString();
    case 'symbol':
      return redactSecrets(value.toString());
    case 'undefined':
    case 'function':
      return undefined;
    case 'object':
      return value === null ? null : redactObject(value, depth, ancestors);
  }
}

function redactObject(value: object, depth: number, ancestors: Set<object>): unknown {
  if (ancestors.has(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Truncated]';
  // Bytes are never logged, only counted: a Buffer here is most likely file content.
  if (ArrayBuffer.isView(value)) return `[${String(value.byteLength)} bytes]`;
  if (value instanceof ArrayBuffer || value instanceof SharedArrayBuffer) {
    return `[${String(value.byteLength)} bytes]`;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  ancestors.add(value);
  try {
    if (value instanceof Error) return redactError(value, depth, ancestors);
    if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, ancestors) ?? null);
    if (value instanceof Map) {
      const entries = [...value.entries()].map(([key, item]): [string, unknown] => [String(key), item]);
      return redactRecord(Object.fromEntries(entries), depth, ancestors);
    }
    if (value instanceof Set)
      return [...value].map((item) => redactValue(item, depth + 1, ancestors) ?? null);
    if (hasToJSON(value)) return redactValue(value.toJSON(), depth + 1, ancestors);
    return redactRecord(value as Record<string, unknown>, depth, ancestors);
  } finally {
    ancestors.delete(value);
  }
}

function redactRecord(
  record: Readonly<Record<string, unknown>>,
  depth: number,
  ancestors: Set<object>,
): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(record)) {
    const redacted = redactValue(item, depth + 1, ancestors);
    if (redacted !== undefined) copy[key] = redacted;
  }
  return copy;
}

/** An Error as `{ type, message, ...own fields such as code, path, syscall, stack, cause }`. */
function redactError(error: Error, depth: number, ancestors: Set<object>): Record<string, unknown> {
  const plain: Record<string, unknown> = { type: error.name, message: error.message };
  for (const [key, item] of Object.entries(error)) plain[key] = item;
  if (error.stack !== undefined) plain['stack'] = error.stack;
  if (error.cause !== undefined) plain['cause'] = error.cause;
  if (error instanceof AggregateError) plain['errors'] = error.errors;
  return redactRecord(plain, depth, ancestors);
}

function hasToJSON(value: object): value is { toJSON(): unknown } {
  return typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
