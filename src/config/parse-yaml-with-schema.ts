import type { Document, Node as YamlNode, YAMLError } from 'yaml';
import type * as Yaml from 'yaml';
import type * as z from 'zod';
import { lazyModule } from '../project/index.js';
import { closestMatch } from './closest-match.js';
import { ConfigError, type ConfigIssue } from './config-error.js';
import { firstLineOf, quoteSourceText } from './quote-source-text.js';

/** yaml loads when a YAML file is first read: commands that read none (log, verify, checkout ...) skip it. */
const yaml = lazyModule<typeof Yaml>('yaml');
/** The keys allowed in one mapping: a fixed list, or one that depends on the mapping (its `kind:`, say). */
export type AllowedKeys =
  readonly string[] | ((mapping: Readonly<Record<string, unknown>>) => readonly string[]);

/**
 * `params` a schema's custom issue (`ctx.addIssue({ code: 'custom', path, message, params })`) may carry to
 * point more precisely than at the value at `path`.
 */
export interface YamlIssueParams {
  /** Point at this key of the mapping at `path` (an unexpected key, say). */
  readonly key?: string;
  /**
   * False: `key` only places the issue, and its path stays the mapping's (the message names the key). For a
   * key such as `password`, whose `path: message` would read as an assignment that redaction then blanks out.
   */
  readonly keyInPath?: boolean;
  /** Point at this text inside the scalar at `path` (a template variable, say). */
  readonly token?: string;
  /** Which occurrence of `token` in the scalar's value, counting from 0 (default 0). */
  readonly occurrence?: number;
}

interface Position {
  readonly line: number;
  readonly column: number;
}

type At = (offset: number) => Position;

type IssuePath = readonly PropertyKey[];

/**
 * Parses YAML `text` and checks it with a zod `schema`, throwing a `ConfigError` that lists every issue
 * with its line, column and fix; `allowedKeys` (by dotted path, `*` matching any one segment, `''` the top
 * level) feeds the "did you mean" of unknown keys, and an empty document is checked as an empty mapping.
 * An issue is one line and quotes the file only from the line it names, redacted (docs/security.md).
 */
export function parseYamlWithSchema<T>(
  text: string,
  source: string,
  schema: z.ZodType<T>,
  allowedKeys: Readonly<Record<string, AllowedKeys>>,
): T {
  if (text === '') {
    // No file (or an empty one) is an empty mapping: checked without loading yaml. A schema that refuses one
    // still gets its issues, with positions, from the full path below.
    const empty = schema.safeParse({});
    if (empty.success) return empty.data;
  }
  const { LineCounter, parseDocument } = yaml();
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const at: At = (offset) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  if (document.errors.length > 0) {
    throw configError(
      source,
      document.errors.map((error) => ({
        path: '',
        message: syntaxMessage(error, text),
        ...at(error.pos[0]),
      })),
    );
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // yaml names an unresolved alias in its message, and the name is the file's text: a password written
    // unquoted after a "*" would be shown. It is pointed at instead.
    const alias = firstUnresolvedAlias(document);
    if (alias !== undefined) {
      throw configError(source, [
        {
          path: '',
          message:
            'an alias (*name) whose anchor (&name) is not set before it; if this is text that starts with "*", quote it',
          ...at(alias),
        },
      ]);
    }
    // yaml refuses documents whose aliases expand without bound ("billion laughs").
    throw configError(source, [
      {
        path: '',
        message: `YAML could not be read: ${quotedTail(firstLineOf((error as Error).message))}; remove the aliases (*name)`,
      },
    ]);
  }
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issues = result.error.issues.flatMap((issue) =>
    toConfigIssues(issue, { document, text, at, allowedKeys }),
  );
  issues.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw configError(source, issues);
}

/** Offset of the first alias that no anchor before it sets (the rule yaml's `toJS` resolves by), if any. */
function firstUnresolvedAlias(document: Document): number | undefined {
  const anchors = new Set<string>();
  let offset: number | undefined;
  yaml().visit(document, {
    Node: (_key, node) => {
      if (yaml().isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        offset = node.range?.[0] ?? 0;
        return yaml().visit.BREAK;
      }
      if (node.anchor !== undefined) anchors.add(node.anchor);
      return undefined;
    },
  });
  return offset;
}

/**
 * The last guard of what a file's problems may show: each issue's message and path on one line, so no quote
 * of a value, a key or a code frame can carry the file's later lines into the error.
 */
function configError(source: string, issues: readonly ConfigIssue[]): ConfigError {
  return new ConfigError(
    source,
    issues.map((issue) => ({ ...issue, path: firstLineOf(issue.path), message: firstLineOf(issue.message) })),
  );
}

function syntaxMessage(error: YAMLError, text: string): string {
  if (error.code === 'DUPLICATE_KEY') {
    // yaml points at the first character of the repeated key; the key runs to its colon.
    const key = /^(?:"[^"\n]*"|'[^'\n]*'|[^:\n]*)/.exec(text.slice(error.pos[0]))?.[0].trim() ?? '';
    return `key ${quoteSourceText(key.replace(/^["']|["']$/g, ''))} appears twice in the same mapping; keep only one of them`;
  }
  // prettyErrors is off, but the first line is all that is kept in any case: a code frame shows other lines.
  return `YAML syntax error (${error.code}): ${quotedTail(firstLineOf(error.message))}`;
}

/**
 * yaml ends some messages with the source it stumbled on, JSON-quoted (`...in YAML stream: "a\nb"`) or as it
 * is (`Not a YAML token: x`, `Unresolved alias ...: name`): that tail is quoted as one redacted, cut line.
 */
function quotedTail(message: string): string {
  const colon = message.indexOf(': ');
  if (colon === -1) return message;
  const tail = message.slice(colon + 2);
  let source = tail;
  if (tail.startsWith('"')) {
    try {
      source = String(JSON.parse(tail));
    } catch {
      // Not JSON after all: quote it as written.
    }
  }
  return `${message.slice(0, colon)}: ${quoteSourceText(source)}`;
}

interface IssueContext {
  readonly document: Document;
  readonly text: string;
  readonly at: At;
  readonly allowedKeys: Readonly<Record<string, AllowedKeys>>;
}

function toConfigIssues(issue: z.core.$ZodIssue, context: IssueContext): ConfigIssue[] {
  const where = issue.path;
  if (issue.code === 'unrecognized_keys') {
    // One issue per key, placed on the key itself, so each misspelling gets its own line and suggestion.
    const allowed = allowedKeysAt(context, where);
    return issue.keys.map((key) => {
      const suggestion = closestMatch(key, allowed);
      const advice =
        suggestion === undefined ? 'remove it' : `did you mean "${suggestion}"? Rename it, or remove it`;
      const listed = allowed.length === 0 ? '' : ` (allowed here: ${allowed.join(', ')})`;
      return {
        path: formatPath([...where, key]),
        message: `unknown key ${quoteSourceText(key)}; ${advice}${listed}`,
        ...locate(context, where, { key }),
      };
    });
  }
  const params: YamlIssueParams = issue.code === 'custom' ? ((issue.params ?? {}) as YamlIssueParams) : {};
  const path = params.key === undefined || params.keyInPath === false ? where : [...where, params.key];
  return [{ path: formatPath(path), message: issue.message, ...locate(context, where, params) }];
}

/** `ingest.limits.max_blocks`, `nodes[2].depends_on[0]`; a key that cannot be shown as it is, quoted: `a["[REDACTED]"]`. */
function formatPath(path: IssuePath): string {
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${String(segment)}]`;
      const name = String(segment);
      // A key is the file's own text: one that is long, spans lines, needs escapes or holds a secret is shown as
      // a quote of its first line, redacted.
      const quoted = quoteSourceText(name);
      if (quoted !== `"${name}"`) return `[${quoted}]`;
      return `${index === 0 ? '' : '.'}${name}`;
    })
    .join('');
}

function allowedKeysAt(context: IssueContext, where: IssuePath): readonly string[] {
  const segments = where.map(String);
  const entry = Object.entries(context.allowedKeys).find(([pattern]) => {
    const parts = pattern === '' ? [] : pattern.split('.');
    return parts.length === segments.length && parts.every((part, i) => part === '*' || part === segments[i]);
  });
  if (entry === undefined) return [];
  const [, allowed] = entry;
  if (typeof allowed !== 'function') return allowed;
  const mapping: unknown = context.document.getIn(where, false);
  const json: unknown = yaml().isNode(mapping) ? mapping.toJSON() : mapping;
  return allowed(typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {});
}

/** Line and column of what `where` and `params` point at, or of the nearest enclosing node that exists. */
function locate(
  context: IssueContext,
  where: IssuePath,
  params: YamlIssueParams,
): Position | Record<string, never> {
  const { document, at } = context;
  // Walk up until a node exists: a value may be missing when its parent has the wrong shape.
  for (let depth = where.length; depth >= 0; depth -= 1) {
    const node: unknown = depth === 0 ? document.contents : document.getIn(where.slice(0, depth), true);
    if (!yaml().isNode(node)) continue;
    if (depth === where.length) {
      const precise =
        params.key === undefined ? locateToken(context, node, params) : locateKey(node, params.key);
      if (precise !== undefined) return at(precise);
    }
    if (node.range) return at(node.range[0]);
  }
  return {};
}

function locateKey(node: YamlNode, key: string): number | undefined {
  if (!yaml().isMap(node)) return undefined;
  const pair = node.items.find((item) => yaml().isScalar(item.key) && String(item.key.value) === key);
  return yaml().isNode(pair?.key) ? pair.key.range?.[0] : undefined;
}

function locateToken(context: IssueContext, node: YamlNode, params: YamlIssueParams): number | undefined {
  if (params.token === undefined || params.token === '' || !yaml().isScalar(node) || !node.range)
    return undefined;
  // Plain and block scalars hold the value's characters as written, so the n-th occurrence in the value is
  // the n-th in the source; escapes in quoted scalars can break that, and then the scalar's start is used.
  const [start, end] = node.range;
  const written = context.text.slice(start, end);
  let index = -1;
  for (let seen = 0; seen <= (params.occurrence ?? 0); seen += 1) {
    index = written.indexOf(params.token, index + 1);
    if (index === -1) return undefined;
  }
  return start + index;
}
