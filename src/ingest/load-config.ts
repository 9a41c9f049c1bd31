import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument, type Document, type YAMLError } from 'yaml';
import type * as z from 'zod';
import { ConfigError, type ConfigIssue } from './config-error.js';
import {
  DEFAULT_PROJECT_CONFIG,
  describeConfigValue,
  PROJECT_CONFIG_FILE,
  PROJECT_CONFIG_KEYS,
  projectConfigSchema,
  type ProjectConfig,
} from './project-config.js';

export type { ProjectConfig } from './project-config.js';

/**
 * Reads `artifact-ingest.config.yaml` from `projectDir` with defaults filled in (a missing file means all
 * defaults); throws `ConfigError` listing every problem in it, each with its line and column.
 */
export async function loadProjectConfig(projectDir: string): Promise<ProjectConfig> {
  const file = path.join(projectDir, PROJECT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return DEFAULT_PROJECT_CONFIG;
    if (code === 'EISDIR') {
      throw new ConfigError(file, [
        { path: '', message: 'is a directory; make it a YAML file or remove it' },
      ]);
    }
    throw error;
  }
  return parseProjectConfig(text, file);
}

/** Parses the text of a config file; `source` names the file in issue messages. */
export function parseProjectConfig(text: string, source: string = PROJECT_CONFIG_FILE): ProjectConfig {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    throw new ConfigError(
      source,
      document.errors.map((error) => ({
        path: '',
        message: syntaxMessage(error, text),
        ...at(error.pos[0]),
      })),
    );
  }
  const value: unknown = document.toJS();
  // An empty file, or one holding only comments, configures nothing.
  if (value === null || value === undefined) return DEFAULT_PROJECT_CONFIG;
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(source, [
      {
        path: '',
        message: `expected a mapping with an "ingest:" key, got ${describeConfigValue(value)}; see docs/configuration.md`,
        ...at(isNode(document.contents) ? document.contents.range[0] : 0),
      },
    ]);
  }
  const result = projectConfigSchema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) => toConfigIssues(issue, document, at));
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw new ConfigError(source, issues);
}

function syntaxMessage(error: YAMLError, text: string): string {
  if (error.code === 'DUPLICATE_KEY') {
    // yaml points at the first character of the repeated key; the key runs to its colon.
    const key = /^(?:"[^"\n]*"|'[^'\n]*'|[^:\n]*)/.exec(text.slice(error.pos[0]))?.[0].trim() ?? '';
    return `key ${JSON.stringify(key.replace(/^["']|["']$/g, ''))} appears twice in the same mapping; keep only one of them`;
  }
  return `YAML syntax error (${error.code}): ${error.message}`;
}

function toConfigIssues(
  issue: z.core.$ZodIssue,
  document: Document,
  at: (offset: number) => { line: number; column: number },
): ConfigIssue[] {
  const where = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    // One issue per key, placed on the key itself, so each misspelling gets its own line and suggestion.
    const allowed = PROJECT_CONFIG_KEYS[where.join('.')] ?? [];
    return issue.keys.map((key) => {
      const suggestion = closestKey(key, allowed);
      const advice =
        suggestion === undefined ? 'remove it' : `did you mean "${suggestion}"? Rename it, or remove it`;
      return {
        path: [...where, key].join('.'),
        message: `unknown key "${key}"; ${advice} (allowed here: ${allowed.join(', ')})`,
        ...locate(document, where, key, at),
      };
    });
  }
  return [{ path: where.join('.'), message: issue.message, ...locate(document, where, undefined, at) }];
}

/** Line and column of the key `key` in the mapping at `where`, or of the value at `where`. */
function locate(
  document: Document,
  where: readonly string[],
  key: string | undefined,
  at: (offset: number) => { line: number; column: number },
): { line: number; column: number } | Record<string, never> {
  // Walk up until a node exists: a value may be missing when its parent has the wrong shape.
  for (let depth = where.length; depth >= 0; depth -= 1) {
    const node: unknown = depth === 0 ? document.contents : document.getIn(where.slice(0, depth), true);
    if (!isNode(node)) continue;
    if (key !== undefined && depth === where.length && isMap(node)) {
      const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === key);
      if (isNode(pair?.key) && pair.key.range) return at(pair.key.range[0]);
    }
    if (node.range) return at(node.range[0]);
  }
  return {};
}

/** The allowed key a misspelt `key` most likely meant: same letters ignoring case and `-`/`_`, or 1-2 edits away. */
function closestKey(key: string, allowed: readonly string[]): string | undefined {
  const normalize = (text: string): string => text.toLowerCase().replace(/[-_\s]/g, '');
  const wanted = normalize(key);
  let best: { key: string; distance: number } | undefined;
  for (const candidate of allowed) {
    const distance = editDistance(wanted, normalize(candidate));
    if (best === undefined || distance < best.distance) best = { key: candidate, distance };
  }
  const tolerance = wanted.length <= 4 ? 1 : 2;
  return best !== undefined && best.distance <= tolerance ? best.key : undefined;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`enabeld` is 1 from `enabled`). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const cell = (i: number, j: number): number => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(cell(i - 1, j) + 1, cell(i, j - 1) + 1, cell(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, cell(i - 2, j - 2) + 1);
      }
      const row = rows[i];
      if (row !== undefined) row[j] = distance;
    }
  }
  return cell(a.length, b.length);
}
