/**
 * Whether a document may hold a fenced block this scan would report, decided without parsing: `false` is a
 * proof, `true` only a maybe.
 */
export function mayHoldCandidate(markdown: string, all: boolean): boolean {
  if (all) return markdown.includes('```') || markdown.includes('~~~');
  // A candidate's info string (CommonMark 4.5: the rest of the opening fence line) decodes to something with
  // `=` or, for `ts:src/x.ts` (D95), `:`; each can only come from itself or a character reference, which starts
  // with `&`. So a line needs a run of 3 fence characters followed later on the same line by `=`, `:` or `&`.
  // Each cached position only moves forward, so the whole check reads the text a constant number of times.
  let position = 0;
  let backticks = -1;
  let tildes = -1;
  let lineFeed = -1;
  let carriageReturn = -1;
  let equals = -1;
  let ampersand = -1;
  let colon = -1;
  for (;;) {
    backticks = nextFrom(markdown, '```', position, backticks);
    tildes = nextFrom(markdown, '~~~', position, tildes);
    const run = Math.min(backticks, tildes);
    if (run === Infinity) return false;
    // CommonMark 2.1: a line ends at a line feed, a carriage return, or both.
    lineFeed = nextFrom(markdown, '\n', run, lineFeed);
    carriageReturn = nextFrom(markdown, '\r', run, carriageReturn);
    const lineEnd = Math.min(lineFeed, carriageReturn);
    equals = nextFrom(markdown, '=', run, equals);
    ampersand = nextFrom(markdown, '&', run, ampersand);
    colon = nextFrom(markdown, ':', run, colon);
    if (Math.min(equals, ampersand, colon) < lineEnd) return true;
    if (lineEnd === Infinity) return false;
    position = lineEnd + 1;
  }
}

/** The first index of `needle` at or after `from`, reusing `cached` when it is still ahead; Infinity when none. */
function nextFrom(text: string, needle: string, from: number, cached: number): number {
  if (cached >= from) return cached;
  const found = text.indexOf(needle, from);
  return found === -1 ? Infinity : found;
}
