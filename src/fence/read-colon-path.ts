/** A ```` ```ts:src/x.ts ```` opener: the language and the path the author joined to it with `:`. */
export interface ColonPath {
  readonly lang: string;
  readonly path: string;
}

// The first word of the info string: a language word, `:`, then a path-shaped word with no quotes and no `=`
// (D95: a `/` or a `.` makes it a path; `ts:line-numbers` and `http://...` are not one).
const colonPath = /^([A-Za-z0-9_+.-]+):([^/\\\s"'`=][^\s"'`=]*)$/;
const firstWord = /^[ \t]*([^ \t]*)/;

/**
 * The language and path of an info string whose first word is `<lang>:<path>` (the convention of some coding
 * assistants for naming a block's file), read from the decoded info string; undefined for every other one.
 */
export function readColonPath(info: string): ColonPath | undefined {
  const word = firstWord.exec(info)?.[1] ?? '';
  const match = colonPath.exec(word);
  const lang = match?.[1];
  const path = match?.[2];
  if (lang === undefined || path === undefined) return undefined;
  return path.includes('/') || path.includes('.') ? { lang, path } : undefined;
}
