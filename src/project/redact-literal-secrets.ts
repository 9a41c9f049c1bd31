import { REDACTED } from './find-secret.js';

/**
 * Configured secrets shorter than this are not removed by value (docs/decisions.md, D92): a key of "a" or "ok"
 * replaced everywhere would wreck every text it touches, and a key that short can be guessed anyway.
 */
export const MIN_LITERAL_SECRET_LENGTH = 4;

/** How a cut text ends when it stopped inside what may be a secret: see {@link redactLiteralSecrets}. */
export interface LiteralRedactionOptions {
  /**
   * True when `text` was cut at its end (a body read no further than some bytes): a trailing start of a secret
   * of {@link MIN_LITERAL_SECRET_LENGTH} characters or more is redacted too.
   */
  readonly cutAtEnd?: boolean;
}

/**
 * Replaces every occurrence of each of `secrets` (a configured key, whatever its shape) with `[REDACTED]`: as
 * written, trimmed, as a JSON string escapes it and as a URL encodes it. Secrets shorter than
 * {@link MIN_LITERAL_SECRET_LENGTH} are left alone. Apply it before any cut, so a secret is seen whole, and
 * before `redactSecrets`, whose patterns could otherwise take part of it and leave the rest unmatchable.
 */
export function redactLiteralSecrets(
  text: string,
  secrets: readonly string[],
  options: LiteralRedactionOptions = {},
): string {
  let redacted = text;
  const forms = literalForms(secrets);
  for (const form of forms) redacted = redacted.replaceAll(form, REDACTED);
  if (options.cutAtEnd === true) redacted = redactTrailingStart(redacted, forms);
  return redacted;
}

/** True when `secret` is long enough to be removed by value. */
export function isRedactableLiteral(secret: string): boolean {
  return secret.trim().length >= MIN_LITERAL_SECRET_LENGTH;
}

/** Every spelling of the secrets that may be printed, longest first (a longer one may contain a shorter). */
function literalForms(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!isRedactableLiteral(secret)) continue;
    for (const value of new Set([secret, secret.trim()])) {
      forms.add(value);
      // Inside --json output or an echoed JSON body, quotes, backslashes and control characters are escaped.
      forms.add(JSON.stringify(value).slice(1, -1));
      // In a URL a server redirects to or echoes (?key=...).
      forms.add(encodeURIComponent(value));
    }
  }
  return [...forms]
    .filter((form) => form.length >= MIN_LITERAL_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
}

/** `text` with a trailing proper start of a form (at least the minimum length) replaced. */
function redactTrailingStart(text: string, forms: readonly string[]): string {
  let longest = 0;
  for (const form of forms) {
    for (let length = Math.min(form.length - 1, text.length); length > longest; length--) {
      if (length < MIN_LITERAL_SECRET_LENGTH) break;
      if (text.endsWith(form.slice(0, length))) {
        longest = length;
        break;
      }
    }
  }
  return longest === 0 ? text : `${text.slice(0, text.length - longest)}${REDACTED}`;
}
