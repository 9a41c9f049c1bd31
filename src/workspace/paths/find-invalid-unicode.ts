/** Why a character makes a declared path invalid Unicode, with the offending code point. */
export interface InvalidUnicode {
  readonly codePoint: number;
  readonly why: string;
}

const loneSurrogate = /\p{Surrogate}/u;
const replacementCharacter = 0xfffd;
const noncharacter = /\p{Noncharacter_Code_Point}/u;
const invisible = /\p{Default_Ignorable_Code_Point}/u;
const bidiControl = /\p{Bidi_Control}/u;
const pathPunctuation = /[./\\:]/;
const whitespace = /\p{White_Space}/u;

// Visual separator lookalikes with no NFKC mapping (Unicode confusables.txt for '/', '\' and ':').
const separatorLookalikes: ReadonlySet<number> = new Set([
  0x2215, 0x2044, 0x29f8, 0x29f9, 0x2216, 0x2236, 0xa789, 0x02f8,
]);

/** The first character of `text` that is broken, invisible, or a lookalike of path punctuation or whitespace. */
export function findInvalidUnicode(text: string): InvalidUnicode | undefined {
  for (const character of text) {
    const codePoint = character.codePointAt(0) ?? 0;
    const why = whyInvalid(character, codePoint);
    if (why !== undefined) return { codePoint, why };
  }
  return undefined;
}

function whyInvalid(character: string, codePoint: number): string | undefined {
  // Code points below U+0080 are judged by the ASCII rules (control_char, backslash, colon, ...).
  if (codePoint < 0x80) return undefined;
  if (loneSurrogate.test(character)) return 'is a lone surrogate (broken UTF-16)';
  if (codePoint === replacementCharacter)
    return 'is the replacement character (a NUL or broken byte became it)';
  if (noncharacter.test(character)) return 'is a Unicode noncharacter';
  if (bidiControl.test(character)) return 'is a bidirectional control that reorders how the path displays';
  if (invisible.test(character)) return 'is invisible (a default-ignorable code point)';
  const compatibilityForm = character.normalize('NFKC');
  if (pathPunctuation.test(compatibilityForm)) {
    return `normalizes (NFKC) to ${JSON.stringify(compatibilityForm)}, which contains path punctuation`;
  }
  if (whitespace.test(compatibilityForm)) return 'is or normalizes to whitespace';
  if (separatorLookalikes.has(codePoint)) return "looks like '/', '\\' or ':'";
  return undefined;
}
