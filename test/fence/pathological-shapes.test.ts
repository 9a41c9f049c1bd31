import { describe, expect, it } from 'vitest';
import { scanFencedBlocks } from '../../src/fence/scan-fenced-blocks.js';
import { PATHOLOGICAL_SHAPES } from '../helpers/pathological-markdown.js';
import { DIFFERENTIAL_PARSERS } from './corpus/differential-parsers.js';
import { findDisagreements } from './corpus/find-disagreements.js';

/** Small enough for micromark, which is superlinear on several of these shapes; the bench times 1 MB. */
const BYTES = 1_500;

/** The block quote markers (each with its optional space) the last line of `markdown` starts with. */
function lastLinePrefix(markdown: string): string {
  const lines = markdown.split(/\r\n|\r|\n/);
  const last = lines.findLast((line) => line !== '') ?? '';
  return /^(?: {0,3}>[\t ]?)*/.exec(last)?.[0] ?? '';
}

/**
 * Each shape twice: with a candidate block after a blank line, and with one that continues the containers
 * of the shape's last line (inside its block quotes, or lazily after its paragraph).
 */
const documents = PATHOLOGICAL_SHAPES.flatMap((shape) => {
  const markdown = shape.make(BYTES);
  const prefix = lastLinePrefix(markdown);
  const inside = ['```ts file=a.ts', 'x', '```'].map((line) => `${prefix}${line}\n`).join('');
  return [
    [`${shape.name} (${shape.source}), then a candidate`, `${markdown}\n\n\`\`\`ts file=a.ts\nx\n\`\`\`\n`],
    [`${shape.name} (${shape.source}), then a candidate in its containers`, `${markdown}\n${inside}`],
  ] as const;
});

describe('pathological shapes (issue 23)', () => {
  it.each(documents)(
    '%s: the scanner finds the blocks micromark and commonmark.js find',
    (_name, markdown) => {
      expect(scanFencedBlocks(markdown).length).toBeGreaterThan(0);
      expect(findDisagreements(markdown, DIFFERENTIAL_PARSERS)).toEqual([]);
    },
  );
});
