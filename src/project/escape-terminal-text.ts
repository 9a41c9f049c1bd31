/**
 * Control and bidirectional-formatting characters that must never reach a terminal as they are: C0 controls
 * but tab and line feed (ESC starts escape sequences, CR rewrites a line, BEL rings), DEL, C1 controls, and the
 * bidi controls that reorder how a line displays (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
 * Carriage return is matched too; {@link escapeTerminalText} keeps the progress line's own.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The same characters, and tab and line feed too: what may not stand inside one field of a one-line display. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every unsafe character written as a `\uXXXX` escape (what JSON.stringify would write for a
 * control), so a path holding U+202E or an escape sequence is shown, not obeyed. The escape is JSON's own, so
 * `--json` output still parses to the same values. A carriage return at the very start or end of a write is
 * kept (that is how the progress line redraws itself, and no agent's text stands there), and so is one before a
 * line feed (a CRLF line ending of a file shown in a diff: it cannot rewrite what the line showed).
 */
export function escapeTerminalText(text: string): string {
  return text.replace(UNSAFE, (character, offset: number) =>
    character === '\r' && (offset === 0 || offset === text.length - 1 || text[offset + 1] === '\n')
      ? character
      : escapeCharacter(character),
  );
}

/**
 * One field of a line shown to a person or an agent (a path, a reason), with every control character, tab,
 * line feed and carriage return included, and every bidi control written as a `\uXXXX` escape: a value taken
 * from a document can neither break the line nor reorder or restyle it.
 */
export function escapeLineText(text: string): string {
  return text.replace(UNSAFE_IN_LINE, escapeCharacter);
}

function escapeCharacter(character: string): string {
  return `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
