/**
 * Disagreements between micromark and commonmark.js that the differential corpus found, pinned by seed so that
 * a new one (or a fixed one) fails the test. Each is a micromark bug until shown otherwise; a parser that
 * matches micromark exactly (the issue-12 scanner) inherits them, a parser that matches commonmark.js does not.
 */

/** One cause of disagreement: its minimal reproduction and the generated documents (by seed) it shows up in. */
export interface KnownDisagreement {
  readonly cause: string;
  /** A minimal document: commonmark.js finds the fenced blocks in `referenceFences`, micromark none. */
  readonly reproduction: string;
  readonly referenceFences: readonly (readonly [info: string, content: string])[];
  /** Seeds of generateDocument, among the first 20,000, on which micromark and commonmark.js disagree. */
  readonly seeds: readonly number[];
}

export const KNOWN_DISAGREEMENTS: readonly KnownDisagreement[] = [
  {
    cause:
      'micromark lets a lazy continuation line that would open an HTML block of kind 7 (`<x>`, which cannot ' +
      'interrupt a paragraph, CommonMark 4.6) end the paragraph and open that HTML block inside the container; ' +
      'the block then swallows the following container lines, fences included, up to a blank line',
    reproduction: '> a\n<x>\n> ```\n',
    referenceFences: [['', '']],
    seeds: [6392, 6615, 7851, 11616, 12525, 13284, 13431, 15430, 16056, 18808],
  },
];
