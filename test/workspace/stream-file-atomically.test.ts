import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { ConfinedRoot } from '../../src/workspace/confined-root-types.js';
import { TEMP_FILE_PATTERN } from '../../src/workspace/temp-file-name.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Chunks of `parts`, counting how many were read; throws after them when `failAfter` is set. */
function chunksOf(parts: readonly string[], failAfter = false) {
  const read = { count: 0 };
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for (const part of parts) {
      read.count += 1;
      await Promise.resolve();
      yield Buffer.from(part);
    }
    if (failAfter) throw new Error('source broke');
  }
  return { chunks: chunks(), read };
}

/** Every file name below `folder`, recursively. */
async function namesBelow(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).map(String).sort();
}

describe.each(['proc-fd', 'lstat-walk'] as const)('ConfinedRoot.writeStream (%s)', (confinement) => {
  let base: string;
  let root: ConfinedRoot;

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'artifact-ingest-stream-'));
    root = await openConfinedRoot(join(base, 'workspace'), { create: true, confinement });
  });

  afterEach(async () => {
    await root.close();
    await rm(base, { recursive: true, force: true });
  });

  it('streams the chunks into the file, creating its folders, and leaves no temp file', async () => {
    const { chunks } = chunksOf(['one ', 'two ', 'three']);
    const outcome = await root.writeStream('a/b/c.txt', chunks, { expectedSha256: sha256('one two three') });
    expect(outcome).toEqual({ status: 'written', path: 'a/b/c.txt' });
    expect(await readFile(join(base, 'workspace/a/b/c.txt'), 'utf8')).toBe('one two three');
    expect(
      (await namesBelow(join(base, 'workspace'))).filter((name) => TEMP_FILE_PATTERN.test(name)),
    ).toEqual([]);
  });

  it('reports unchanged when the target already holds the streamed bytes', async () => {
    await mkdir(join(base, 'workspace'), { recursive: true });
    await writeFile(join(base, 'workspace/same.txt'), 'same bytes');
    const { chunks } = chunksOf(['same ', 'bytes']);
    expect(await root.writeStream('same.txt', chunks)).toEqual({ status: 'unchanged', path: 'same.txt' });
    expect(await namesBelow(join(base, 'workspace'))).toEqual(['same.txt']);
  });

  it.each([
    ['a hash mismatch', ['tampered'], false, 'hash_mismatch'],
    ['a source that fails midway', ['half', 'way'], true, 'throws'],
  ])('keeps the old file and leaves no temp file after %s', async (_name, parts, failAfter, expected) => {
    await writeFile(join(base, 'workspace/kept.txt'), 'old content');
    const { chunks } = chunksOf(parts, failAfter);
    const outcome = await root
      .writeStream('kept.txt', chunks, { expectedSha256: sha256('original') })
      .catch((error: unknown) => (error instanceof Error ? 'throws' : 'other'));
    expect(typeof outcome === 'string' ? outcome : outcome.status).toBe(expected);
    if (typeof outcome !== 'string' && outcome.status === 'hash_mismatch') {
      expect(outcome).toEqual({
        status: 'hash_mismatch',
        path: 'kept.txt',
        sha256: sha256('tampered'),
        bytes: 8,
      });
    }
    expect(await readFile(join(base, 'workspace/kept.txt'), 'utf8')).toBe('old content');
    expect(await namesBelow(join(base, 'workspace'))).toEqual(['kept.txt']);
  });

  it.each([
    ['a symlinked folder on the way', 'out/file.txt', 'symlink'],
    ['a symlink as the target', 'link.txt', 'symlink'],
    ['a traversal', '../escape.txt', 'traversal'],
  ])('refuses %s without reading the chunks or writing outside', async (_name, declared, code) => {
    const outside = join(base, 'outside');
    await mkdir(outside);
    await symlink(outside, join(base, 'workspace/out'));
    await symlink(join(outside, 'target.txt'), join(base, 'workspace/link.txt'));
    const { chunks, read } = chunksOf(['secret']);
    const outcome = await root.writeStream(declared, chunks);
    expect(outcome.status).toBe('refused');
    expect('code' in outcome ? outcome.code : undefined).toBe(code);
    expect(read.count).toBe(0);
    expect(await readdir(outside)).toEqual([]);
    expect(await readdir(base)).toEqual(['outside', 'workspace']);
  });
});
