/**
 * The parsers the differential corpus compares, block by block, with the first of them. Adding a parser (the
 * block scanner of issue 12) is one line here; the test and `npm run bench` both read this list.
 */
import { readFencedBlocks, type RawFence } from '../../../src/fence/read-fenced-blocks.js';
import { scanFencedBlocks } from '../../../src/fence/scan-fenced-blocks.js';
import { asReferenceReadsIt, type InfoAndContent, referenceFences } from './reference-fences.js';

/** A parser that gives every field of a fenced block, as `readFencedBlocks` does. */
export interface FullParser {
  readonly name: string;
  readonly full: (markdown: string) => readonly RawFence[];
}

/** A parser that gives only the info string and content (\n endings) of each block, as commonmark.js does. */
export interface InfoAndContentParser {
  readonly name: string;
  readonly infoAndContent: (markdown: string) => readonly InfoAndContent[];
}

export type DifferentialParser = FullParser | InfoAndContentParser;

/** micromark's block parser, the path `parseFences` takes today; the baseline the others are compared with. */
export const micromarkParser: FullParser = {
  name: 'micromark',
  full: (markdown) => readFencedBlocks(markdown),
};

/** commonmark.js, fed the document with its two quirks undone (reference-fences.ts). */
export const commonmarkParser: InfoAndContentParser = {
  name: 'commonmark.js',
  infoAndContent: (markdown) => referenceFences(asReferenceReadsIt(markdown)),
};

/** The baseline first, then every parser compared with it. */
export const DIFFERENTIAL_PARSERS: readonly [FullParser, ...DifferentialParser[]] = [
  micromarkParser,
  commonmarkParser,
  { name: 'scanner', full: (markdown) => scanFencedBlocks(markdown) },
];
