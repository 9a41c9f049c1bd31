/** The block parsers that can find fenced code blocks (`ingest.parser`). */
export const FENCE_PARSERS = ['scanner', 'micromark'] as const;

/** `'scanner'`: the one-pass CommonMark block scanner; `'micromark'`: the reference path it is checked against. */
export type FenceParser = (typeof FENCE_PARSERS)[number];

/**
 * The block parser used when none is chosen: the scanner, linear in its input and tens to hundreds of times
 * faster than micromark, with the same blocks wherever micromark follows CommonMark (D66, D67).
 */
export const DEFAULT_FENCE_PARSER: FenceParser = 'scanner';
