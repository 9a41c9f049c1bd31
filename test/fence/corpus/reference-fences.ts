/**
 * Fenced code blocks as commonmark.js, the CommonMark reference implementation, sees them: the oracle of
 * commonmark-oracle.test.ts and of the differential corpus.
 */
import { Parser } from 'commonmark';

/** A fenced block as commonmark.js gives it: the decoded info string and the content with \n endings. */
export type InfoAndContent = readonly [info: string, content: string];

const reference = new Parser();

/** Fenced code blocks as commonmark.js, the reference implementation, sees them. */
export function referenceFences(markdown: string): InfoAndContent[] {
  const found: InfoAndContent[] = [];
  const walker = reference.parse(markdown).walker();
  for (let step = walker.next(); step !== null; step = walker.next()) {
    const { entering, node } = step;
    // commonmark.js keeps fenced-ness in an untyped field; indented code blocks have no info string.
    if (entering && node.type === 'code_block' && (node as unknown as { _isFenced: boolean })._isFenced) {
      found.push([node.info ?? '', node.literal ?? '']);
    }
  }
  return found;
}

/**
 * The same document with two commonmark.js quirks undone, neither changing CommonMark's lines: commonmark.js
 * does not skip a leading byte order mark (cmark does), and after a final lone CR (a line ending, CommonMark 2.1)
 * it sees one more, empty, line; a final CRLF ends the line the same way.
 */
export function asReferenceReadsIt(markdown: string): string {
  const withoutBom = markdown.charCodeAt(0) === 0xfeff ? markdown.slice(1) : markdown;
  return withoutBom.endsWith('\r') ? `${withoutBom}\n` : withoutBom;
}

/** Content with every line ending as \n, the form commonmark.js stores it in. */
export function withNewlineEndings(content: string): string {
  return content.replace(/\r\n?/g, '\n');
}
