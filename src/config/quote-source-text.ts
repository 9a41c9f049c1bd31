import { redactSecrets } from '../project/index.js';

/** Most characters of a file's text that one quote in an error message shows (after redaction). */
export const MAX_QUOTED_CHARS = 60;

// What ends a line for a reader of the message: YAML's breaks, and the Unicode ones a terminal may honour.
const LINE_BREAK = /[\r\n\u0085\u2028\u2029]/;

/**
 * A piece of a file's text as an error message may show it: its first line only, secrets redacted, at most
 * `maxChars` characters (`…` marks what was left out), JSON-quoted so no control character reaches a terminal.
 */
export function quoteSourceText(text: string, maxChars = MAX_QUOTED_CHARS): string {
  const lineEnd = text.search(LINE_BREAK);
  const line = lineEnd === -1 ? text : text.slice(0, lineEnd);
  // Redacted before the cut, so a secret is recognized whole (docs/security.md, "Secrets").
  const redacted = redactSecrets(line);
  const shown = redacted.length > maxChars ? redacted.slice(0, maxChars) : redacted;
  return JSON.stringify(shown === redacted && lineEnd === -1 ? shown : `${shown}…`);
}

/** The first line of a message: what a code frame or a quoted value's later lines would add is dropped. */
export function firstLineOf(message: string): string {
  const lineEnd = message.search(LINE_BREAK);
  return lineEnd === -1 ? message : message.slice(0, lineEnd);
}
