import { describe, expect, it } from 'vitest';
import * as fence from '../../src/fence/index.js';

describe('src/fence public surface', () => {
  it('exports parseFences, its pre-check mayHoldCandidate, readArtifactAttribute, FenceFeed and nothing internal at runtime', () => {
    // mayHoldCandidate: the isolated parse (src/ingest) answers a provable "no candidate" without a worker;
    // FenceFeed: the streaming ingest (src/ingest) feeds the same scanner a line at a time.
    expect(Object.keys(fence).sort()).toEqual([
      'FenceFeed',
      'mayHoldCandidate',
      'parseFences',
      'readArtifactAttribute',
    ]);
  });

  it('exports a working parseFences', () => {
    expect(fence.parseFences('```ts file=a.ts\nx\n```\n').blocks.map((block) => block.declaredFile)).toEqual([
      'a.ts',
    ]);
  });
});
