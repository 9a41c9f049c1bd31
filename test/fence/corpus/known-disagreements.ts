/**
 * Disagreements between micromark and commonmark.js that the differential corpus found, pinned by seed so that
 * a new one (or a fixed one) fails the test. Each is a micromark bug until shown otherwise; a parser that
 * matches micromark exactly (the issue-12 scanner) inherits them, a parser that matches commonmark.js does not
 * and is listed in `parsers` beside it.
 */

/** One cause of disagreement: its minimal reproduction and the generated documents (by seed) it shows up in. */
export interface KnownDisagreement {
  readonly cause: string;
  /** A minimal document: commonmark.js finds the fenced blocks in `referenceFences`, micromark none. */
  readonly reproduction: string;
  readonly referenceFences: readonly (readonly [info: string, content: string])[];
  /** The parsers of DIFFERENTIAL_PARSERS that differ from micromark on these seeds. */
  readonly parsers: readonly string[];
  /** Seeds of generateDocument, among the first 20,000, on which micromark and commonmark.js disagree. */
  readonly seeds: readonly number[];
}

/** Every known cause, one entry each. */
export const KNOWN_DISAGREEMENTS: readonly KnownDisagreement[] = [
  {
    cause:
      'micromark lets a lazy continuation line that would open an HTML block of kind 7 (`<x>`, which cannot ' +
      'interrupt a paragraph, CommonMark 4.6) end the paragraph and open that HTML block inside the container; ' +
      'the block then swallows the following container lines, fences included, up to a blank line',
    reproduction: '> a\n<x>\n> ```\n',
    referenceFences: [['', '']],
    parsers: ['commonmark.js', 'scanner'],
    seeds: [
      1372, 2091, 3863, 5687, 9889, 10761, 11375, 12950, 13957, 15902, 16056, 16758, 17260, 17269, 18311,
    ],
  },
];
