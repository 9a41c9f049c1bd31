import { describe, expect, it } from 'vitest';
import * as fence from '../../src/fence/index.js';

describe('src/fence public surface', () => {
  it('exports parseFences, readArtifactAttribute and nothing internal at runtime', () => {
    expect(Object.keys(fence).sort()).toEqual(['parseFences', 'readArtifactAttribute']);
  });

  it('exports a working parseFences', () => {
    expect(fence.parseFences('```ts file=a.ts\nx\n```\n').blocks.map((block) => block.declaredFile)).toEqual([
      'a.ts',
    ]);
  });
});
