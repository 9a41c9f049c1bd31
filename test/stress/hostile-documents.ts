/**
 * Documents built to exhaust the ingest's memory or time, each holding one valid block (`valid.txt`) that must
 * still be written: near-miss openers past max_blocks, unterminated fences, deep nesting, and cmark's
 * pathological "empty lines in deeply nested lists in blockquote".
 */

/** The one block of every hostile document that must be written: `workspace/valid.txt` holding `valid\n`. */
export const VALID_BLOCK = '```txt file=valid.txt\nvalid\n```\n';

/** What `workspace/valid.txt` holds once the valid block is written. */
export const VALID_CONTENT = 'valid\n';

/** A hostile document: a name for the table and its text. */
export interface HostileDocument {
  readonly name: string;
  readonly text: string;
}

const MIB = 1024 * 1024;

/** `head`, then `unit` as many times as fits in `bytes` (every unit is ASCII: characters are bytes). */
function filled(head: string, unit: string, bytes: number): string {
  return head + unit.repeat(Math.max(0, Math.floor((bytes - head.length) / unit.length)));
}

/**
 * The valid block, then empty fenced blocks whose info string holds `=` but no `file=` (near-miss candidates,
 * 10 bytes each): 104,857 candidates in 1 MiB, about 1.7 million in 16 MiB.
 */
export function nearMissOpeners(bytes: number): string {
  return filled(`${VALID_BLOCK}\n`, '```x=\n```\n', bytes);
}

/** The valid block, then list items that each open a fence the item's end closes (8 bytes each). */
export function unterminatedFences(bytes: number): string {
  return filled(`${VALID_BLOCK}\n`, '- ```x=\n', bytes);
}

/** The valid block, then `depth` nested block quotes holding a candidate (cmark's "nested block quotes"). */
export function deepBlockQuotes(depth: number): string {
  return `${VALID_BLOCK}\n${'> '.repeat(depth)}\`\`\`x=\nq\n\`\`\`\n`;
}

/** The valid block, then a list nested `depth` deep, a candidate at the bottom (cmark's "deeply nested lists"). */
export function deepLists(depth: number): string {
  const items = Array.from({ length: depth }, (_, level) => `${'  '.repeat(level)}* a\n`).join('');
  return `${VALID_BLOCK}\n${items}${'  '.repeat(depth)}\`\`\`x=\n${'  '.repeat(depth)}l\n`;
}

/**
 * cmark's "empty lines in deeply nested lists in blockquote": a quote holding `depth` nested list markers,
 * then `depth` quoted blank lines; the valid block follows, so the document must be parsed to its end.
 */
export function blankLinesInNestedQuotedList(depth: number): string {
  return `> ${'- '.repeat(depth)}x\n${'>\n'.repeat(depth)}\n${VALID_BLOCK}`;
}

/**
 * The hostile documents in the order the scenario runs them (`--hostile-documents N` runs the first N): the
 * cheap and telling ones first, the 16 MiB one last.
 */
export function hostileDocuments(): HostileDocument[] {
  return [
    { name: 'near-miss openers 1 MiB', text: nearMissOpeners(MIB) },
    { name: 'blank lines, nested list in quote 90 KB', text: blankLinesInNestedQuotedList(22_500) },
    { name: 'unterminated fences 1 MiB', text: unterminatedFences(MIB) },
    { name: 'nested block quotes 50,000', text: deepBlockQuotes(50_000) },
    { name: 'nested lists 1,000', text: deepLists(1_000) },
    { name: 'blank lines, nested list in quote 1 MB', text: blankLinesInNestedQuotedList(250_000) },
    // Under max_document_bytes (16 MiB), so it must be parsed, not refused for its size.
    { name: 'near-miss openers 16 MiB', text: nearMissOpeners(16 * MIB - 64 * 1024) },
  ];
}
