import { sha256Hex } from '../../project/index.js';
import path from 'node:path';
import { closestMatch, ConfigError, parseYamlWithSchema } from '../../config/index.js';
import { BUILTIN_GRAPH_NAMES, BUILTIN_GRAPH_YAML, isBuiltinGraphName } from './builtin-graphs.js';
import type { GraphDefinition } from './graph-definition.js';
import { GRAPH_KEYS, graphSchema, type GraphBody } from './graph-schema.js';
import { readConfigText } from '../../config/index.js';

/** Largest graph file read, in bytes. */
export const MAX_GRAPH_FILE_BYTES = 1024 * 1024;

// Bounded, so a long-lived host that loads many distinct graphs keeps a fixed amount of memory.
const CACHE_LIMIT = 64;
const bodies = new Map<string, GraphBody>();
const definitions = new Map<string, GraphDefinition>();

/**
 * Parses and validates a graph's YAML text, throwing a `ConfigError` that lists every problem with its line
 * and column; the result is frozen and cached by the text's sha256, so the same text and source give the
 * same object.
 */
export function parseGraph(text: string, source: string): GraphDefinition {
  const hash = sha256Hex(text);
  const key = `${hash}\n${source}`;
  const cached = definitions.get(key);
  if (cached !== undefined) return cached;
  // The text decides everything but `source`, so the same text read from another file is not parsed again.
  let body = bodies.get(hash);
  if (body === undefined) {
    body = parseYamlWithSchema(text, source, graphSchema, GRAPH_KEYS);
    remember(bodies, hash, body);
  }
  const definition = deepFreeze({ ...body, hash, source });
  remember(definitions, key, definition);
  return definition;
}

/**
 * Loads a graph by built-in name (`single`, `self_critique`, `team`) or by the path of a YAML file, relative
 * to `options.cwd`; a missing or unreadable definition is a `ConfigError`.
 */
export async function loadGraph(ref: string, options: { readonly cwd: string }): Promise<GraphDefinition> {
  if (isBuiltinGraphName(ref)) return parseGraph(BUILTIN_GRAPH_YAML[ref], `builtin:${ref}`);
  const file = path.resolve(options.cwd, ref);
  const text = await readConfigText(file);
  if (text === undefined) {
    const builtin = closestMatch(ref, BUILTIN_GRAPH_NAMES);
    const hint = builtin === undefined ? '' : `did you mean the built-in graph "${builtin}"? Otherwise `;
    throw new ConfigError(file, [
      {
        path: '',
        message: `no such graph file; ${hint}give a YAML file's path or a built-in graph: ${BUILTIN_GRAPH_NAMES.join(', ')}`,
      },
    ]);
  }
  return parseGraph(text, file);
}

function remember<V>(cache: Map<string, V>, key: string, value: V): void {
  cache.set(key, value);
  // Maps iterate in insertion order: the first key is the oldest.
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value ?? '');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
