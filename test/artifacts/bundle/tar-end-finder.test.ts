import { describe, expect, it } from 'vitest';
import { TarEndFinder } from '../../../src/artifacts/bundle/tar-end-finder.js';
import { rawTar } from '../../helpers/raw-tar.js';

const archive = rawTar([
  { path: 'a.txt', body: 'a'.repeat(700) },
  { path: 'dir/', type: 'Directory' },
  // A body of zero blocks is body, not the end: the walk follows the header's size past it.
  { path: 'zeros.bin', body: Buffer.alloc(2048) },
  { path: 'b.txt', body: '' },
]);

/** Feeds `bytes` to a finder in chunks of `size`; returns the archive bytes it counted. */
function walk(bytes: Buffer, size: number): { archived: number; finder: TarEndFinder } {
  const finder = new TarEndFinder();
  let archived = 0;
  for (let at = 0; at < bytes.length; at += size) archived += finder.take(bytes.subarray(at, at + size));
  return { archived, finder };
}

describe('TarEndFinder', () => {
  it.each([1, 7, 511, 512, 513, 1024, 4096, 65536])(
    'finds the end just past the two zero blocks, in chunks of %i bytes, with padding after it',
    (size) => {
      const { archived, finder } = walk(Buffer.concat([archive, Buffer.alloc(10_240)]), size);
      expect(finder.ended).toBe(true);
      expect(finder.problem).toBeUndefined();
      expect(archived).toBe(archive.length);
    },
  );

  it('reports a zero block between two entries', () => {
    const [first, rest] = [rawTar([{ path: 'a.txt', body: 'a' }]), rawTar([{ path: 'b.txt', body: 'b' }])];
    const bytes = Buffer.concat([first.subarray(0, -1024), Buffer.alloc(512), rest]);
    const { finder } = walk(bytes, 4096);
    expect(finder.problem).toBe('stray_zero_block');
    expect(finder.ended).toBe(false);
  });

  it('reports a header whose checksum fails, and leaves the rest to the parser', () => {
    const bytes = Buffer.from(archive);
    bytes[0] = 0x58;
    const { finder, archived } = walk(bytes, 4096);
    expect(finder.problem).toBe('unreadable_header');
    expect(archived).toBe(bytes.length);
  });

  it('does not end on an archive cut before its marker', () => {
    const { finder, archived } = walk(archive.subarray(0, archive.length - 1024), 100);
    expect(finder.ended).toBe(false);
    expect(archived).toBe(archive.length - 1024);
  });
});
