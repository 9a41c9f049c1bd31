/**
 * The one pattern of every id that becomes a folder or file name (run, node, graph, agent, step): spec
 * ingest.md, "Project layout". Written here once; everything else refers to it.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Most characters an id may have. */
export const MAX_ID_LENGTH = 128;

/** What an id may be, in words, for messages: "must match ...". */
export const ID_RULE = `must match ${ID_PATTERN.source} (1 to ${String(MAX_ID_LENGTH)} letters, digits, '.', '_' or '-', starting with a letter or digit)`;

/** True when `text` is a valid id. */
export function isId(text: string): boolean {
  return ID_PATTERN.test(text);
}

/**
 * Turns free text into a valid id (other characters become `-`, leading punctuation is dropped, the
 * length is capped at `maxLength`), or `fallback` when nothing is left.
 */
export function sanitizeId(text: string, fallback: string, maxLength: number = MAX_ID_LENGTH): string {
  const id = text
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, maxLength);
  return id === '' ? fallback : id;
}
