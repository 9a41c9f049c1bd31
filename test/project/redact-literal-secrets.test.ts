import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isRedactableLiteral,
  MIN_LITERAL_SECRET_LENGTH,
  REDACTED,
  redactLiteralSecrets,
} from '../../src/project/index.js';

describe('redactLiteralSecrets', () => {
  it('removes a key of any shape as written, trimmed, JSON-escaped and URL-encoded', () => {
    expect(redactLiteralSecrets('echo hunter2xyz and hunter2xyz', ['hunter2xyz'])).toBe(
      `echo ${REDACTED} and ${REDACTED}`,
    );
    const key = 'p"a\\ss w/rd';
    const text = `raw ${key} json ${JSON.stringify({ key })} url ?k=${encodeURIComponent(key)}`;
    const redacted = redactLiteralSecrets(text, [key]);
    expect(redacted).toBe(`raw ${REDACTED} json {"key":"${REDACTED}"} url ?k=${REDACTED}`);
    expect(redactLiteralSecrets('Bearer padded-key!', [' padded-key!\n'])).toBe(`Bearer ${REDACTED}`);
  });

  it(`removes keys of ${MIN_LITERAL_SECRET_LENGTH} characters or more, and leaves shorter ones (and their text) alone`, () => {
    expect(MIN_LITERAL_SECRET_LENGTH).toBe(4);
    expect(redactLiteralSecrets('a Zq7w b', ['Zq7w'])).toBe(`a ${REDACTED} b`);
    expect(redactLiteralSecrets('a k3y b', ['k3y'])).toBe('a k3y b');
    expect(redactLiteralSecrets('a b c', ['a', '', ' b  '])).toBe('a b c');
    expect(isRedactableLiteral('Zq7w')).toBe(true);
    expect(isRedactableLiteral('k3y')).toBe(false);
    expect(isRedactableLiteral('  k3y  ')).toBe(false);
  });

  it('removes the longer of two keys when one contains the other', () => {
    expect(redactLiteralSecrets('x abcd-efgh y', ['abcd', 'abcd-efgh'])).toBe(`x ${REDACTED} y`);
  });

  it('removes the start of a key left at the end of a cut text, only when told the text was cut', () => {
    expect(redactLiteralSecrets('echoed: hunter2', ['hunter2xyz'], { cutAtEnd: true })).toBe(
      `echoed: ${REDACTED}`,
    );
    expect(redactLiteralSecrets('echoed: hunter2', ['hunter2xyz'])).toBe('echoed: hunter2');
    // Fewer characters than the minimum are not taken for the start of a key.
    expect(redactLiteralSecrets('echoed: hun', ['hunter2xyz'], { cutAtEnd: true })).toBe('echoed: hun');
  });

  it('leaves no occurrence of a key of 4 or more characters, whatever the text around it', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: MIN_LITERAL_SECRET_LENGTH, maxLength: 24 }),
        fc.array(fc.string({ maxLength: 12 }), { maxLength: 5 }),
        (key, parts) => {
          fc.pre(key.trim().length >= MIN_LITERAL_SECRET_LENGTH);
          const text = parts.join(key);
          const redacted = redactLiteralSecrets(text, [key]);
          // The marker itself may hold the key's characters; with it taken out, the key must be gone.
          expect(redacted.split(REDACTED).join('\u0000')).not.toContain(key);
        },
      ),
    );
  });
});
