import type { FenceFormatCode } from './fence-block.js';
import { readColonPath } from './read-colon-path.js';

/** What the info string grammar `<lang>[ \t]+file=<path>` makes of one decoded info string. */
export interface InfoStringReading {
  /** First word; '' when the info string is empty or starts with an attribute. */
  readonly lang: string;
  /** Value of the first `file=` word exactly as written; '' when there is none. */
  readonly declaredFile: string;
  /** Why the info string does not follow the grammar; undefined when it does. */
  readonly problem: InfoStringProblem | undefined;
}

/** A grammar failure: a format code and a message saying what to write instead. */
export interface InfoStringProblem {
  readonly code: FenceFormatCode;
  readonly message: string;
}

const langPattern = /^[A-Za-z0-9_+.-]+$/;
const wordSeparator = /[ \t]+/;
const quoteCharacter = /["'`]/;
// Spaces and tabs already separate words, so any whitespace left inside a word is some other kind.
const otherWhitespace = /\s/u;
const keyValue = /^([^=]+)=/;
const fileKey = 'file=';
const shape = '<lang> file=<relative path>';

/**
 * Reads a decoded info string against the grammar `<lang>[ \t]+file=<path>`, checking rules in a fixed order;
 * `fence` is the opening fence run, so that a message can show the opening line to write.
 */
export function parseInfoString(info: string, fence = '```'): InfoStringReading {
  const words = info.trim().split(wordSeparator);
  const first = words[0] ?? '';
  const rest = words.slice(1);
  const fileWords = rest.filter((word) => word.startsWith(fileKey));
  const firstFile = fileWords[0];
  const colonPath = readColonPath(first);
  const lang = first.includes('=') ? '' : (colonPath?.lang ?? first);
  const declaredFile =
    firstFile === undefined ? (colonPath?.path ?? firstFileValue(first)) : firstFile.slice(fileKey.length);
  const read = (problem: InfoStringProblem | undefined): InfoStringReading => ({
    lang,
    declaredFile,
    problem,
  });

  if (first === '' || first.includes('=')) {
    return read({
      code: 'missing_lang',
      message: `info string has no language before its attributes; write ${shape}, e.g. ts file=src/a.ts`,
    });
  }
  // D95: `ts:src/x.ts` names its file the way some assistants do; say which opening line names it here.
  if (colonPath !== undefined) {
    return read({
      code: 'lang_colon_path',
      message: `info string joins the path to the language with ':' (${shown(first)}); write ${fence}${shown(colonPath.lang)} file=${shown(colonPath.path)}`,
    });
  }
  if (!langPattern.test(first)) {
    return read({
      code: 'invalid_lang',
      message: `language '${shown(first)}' may only use letters, digits and _ + . -; write a plain word such as ts, c++ or text before file=`,
    });
  }
  if (fileWords.some((word) => word.length === fileKey.length)) {
    return read({
      code: 'empty_path',
      message: `file= has no path; write file=<relative path> with no space after =`,
    });
  }
  // Checked before extra words: `file="my file.py"` splits into two words but is a quoting mistake.
  if (fileWords.some((word) => quoteCharacter.test(word))) {
    return read({
      code: 'quoted_path',
      message: `file= path is quoted; write file=<relative path> without quotes (a path cannot contain spaces)`,
    });
  }
  if (firstFile !== undefined) {
    if (fileWords.length > 1) {
      return read({
        code: 'extra_attributes',
        message: `info string declares file= ${fileWords.length} times; write exactly one file=<relative path>`,
      });
    }
    const extra = rest.find((word) => word !== firstFile);
    if (extra !== undefined) {
      return read({
        code: 'extra_attributes',
        message: `info string has '${shown(extra)}' besides file=; write only ${shape}`,
      });
    }
    const whitespace = otherWhitespace.exec(declaredFile);
    if (whitespace !== null) {
      return read({
        code: 'extra_attributes',
        message: `file= path contains whitespace (${codePoint(whitespace[0])}); a path is one word: write ${shape}`,
      });
    }
    return read(undefined);
  }
  const attributes = rest.flatMap((word) => {
    const key = keyValue.exec(word)?.[1];
    return key === undefined ? [] : [{ key, path: pathOfValue(word.slice(key.length + 1)) }];
  });
  // The attribute naming a path is the one the author meant as the file (`title=src/x.ts`, `path=a.py`).
  const named = attributes.find((attribute) => attribute.path !== undefined) ?? attributes[0];
  if (named !== undefined) {
    const fix =
      named.path === undefined ? 'file=<relative path>' : `${fence}${shown(first)} file=${shown(named.path)}`;
    return read({ code: 'unsupported_key', message: `info string uses ${shown(named.key)}=; write ${fix}` });
  }
  return read({
    code: 'missing_file',
    message: `info string has no file= attribute; write ${shape}`,
  });
}

/**
 * The path an attribute's value names, unquoted (`"src/x.ts"` names `src/x.ts`), when it looks like one: a `/` or
 * a `.` in a word with no quotes left in it; undefined for a value such as `"My example"` or `1`.
 */
function pathOfValue(value: string): string | undefined {
  const unquoted = /^(["'])(.*)\1$/.exec(value)?.[2] ?? value;
  if (unquoted === '' || quoteCharacter.test(unquoted)) return undefined;
  return unquoted.includes('/') || unquoted.includes('.') ? unquoted : undefined;
}

/** For `file=a.py` written where the language belongs, the path the author meant. */
function firstFileValue(first: string): string {
  return first.startsWith(fileKey) ? first.slice(fileKey.length) : '';
}

/** Echoes part of the author's text in a message, bounded so a hostile info string cannot bloat it. */
function shown(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}...` : text;
}

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}
