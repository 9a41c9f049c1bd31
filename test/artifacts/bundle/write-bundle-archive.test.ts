import { createHash, randomBytes } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeBundleArchive } from '../../../src/artifacts/bundle/write-bundle-archive.js';
import type { ArchiveEntry } from '../../../src/artifacts/bundle/write-bundle-archive.js';
import { patchFileHandleWrite } from '../../helpers/patch-file-handle-write.js';
import { readTarEntries } from '../../helpers/raw-tar.js';
import { tempProject } from '../../helpers/temp-project.js';

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** Files of these sizes, random (so gzip cannot shrink them and the output backs up), named f0, f1, ... */
function randomFiles(sizes: readonly number[]): { entries: ArchiveEntry[]; bodies: Map<string, Buffer> } {
  const bodies = new Map(sizes.map((size, index) => [`f${String(index)}`, randomBytes(size)]));
  const entries = [...bodies].map(([name, body]): ArchiveEntry => ({
    type: 'File',
    path: name,
    bytes: () => Promise.resolve(body),
  }));
  return { entries, bodies };
}

async function writeTo(file: string, entries: readonly ArchiveEntry[]): Promise<number> {
  const handle = await open(file, 'wx');
  try {
    return await writeBundleArchive(handle, entries);
  } finally {
    await handle.close();
  }
}

const restores: (() => void)[] = [];
afterEach(() => {
  for (const restore of restores.splice(0)) restore();
});

describe('writeBundleArchive', () => {
  it('writes every entry when the output backs up with five or more entries queued behind a large one', async () => {
    // node-tar's Pack pipes only its head entry and counts queued entries against its 4 jobs: handed entries
    // faster than it writes them, it stops for good and the process exits with half an archive.
    const { entries, bodies } = randomFiles([150_000, 150_000, 100_000, 1000, 1000, 1000, 1000]);
    const file = path.join(await tempProject(), 'out.tar.gz');
    const bytes = await writeTo(file, entries);
    expect(bytes).toBe((await readFile(file)).length);
    const read = await readTarEntries(file);
    expect(read.map((entry) => [entry.path, sha256(entry.body as Uint8Array)])).toEqual(
      [...bodies].map(([name, body]) => [name, sha256(body)]),
    );
  }, 60_000);

  it('writes all of every chunk when the file takes fewer bytes per write than it was given', async () => {
    // A short write, as write(2) may make: at most 1000 bytes taken per call.
    restores.push(
      await patchFileHandleWrite(
        (original) =>
          function (buffer, offset = 0, length = buffer.length - offset) {
            return original.call(this, buffer, offset, Math.min(length, 1000));
          },
      ),
    );
    const { entries, bodies } = randomFiles([40_000, 3000]);
    const file = path.join(await tempProject(), 'out.tar.gz');
    await writeTo(file, entries);
    const read = await readTarEntries(file);
    expect(read.map((entry) => sha256(entry.body as Uint8Array))).toEqual(
      [...bodies.values()].map((body) => sha256(body)),
    );
  });
});
