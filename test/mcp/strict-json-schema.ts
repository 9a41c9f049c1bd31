import { createRequire } from 'node:module';
import path from 'node:path';

/** The part of Ajv the MCP tests use. */
export interface AjvLike {
  compile: (schema: object) => ((data: unknown) => boolean) & { errors?: unknown };
}

// The Ajv the SDK's client validates tool results with (v8, draft-07), strict: what a strict client would do.
const requireFromSdk = createRequire(
  path.join(process.cwd(), 'node_modules', '@modelcontextprotocol', 'sdk', 'package.json'),
);
export const { default: Ajv } = requireFromSdk('ajv') as { default: new (options: object) => AjvLike };

/** A copy of a JSON schema where every object schema allows no property it does not name. */
export function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (schema === null || typeof schema !== 'object') return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, closed(value)]));
  return copy.type === 'object' && copy.properties !== undefined && copy.additionalProperties === undefined
    ? { ...copy, additionalProperties: false }
    : copy;
}
