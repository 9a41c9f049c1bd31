import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readlink } from 'node:fs/promises';

/** Computes the sha256 hex of one file of the project; injectable so tests can count what is read. */
export type ProjectFileHasher = (absolutePath: string, kind: 'file' | 'symlink') => Promise<string>;

/** The default hasher: reads a file through O_NOFOLLOW (never through a link), or hashes a symlink's own text. */
export const hashProjectFile: ProjectFileHasher = async (absolutePath, kind) => {
  if (kind === 'symlink') {
    return createHash('sha256')
      .update(await readlink(absolutePath))
      .digest('hex');
  }
  const handle = await open(absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const hash = createHash('sha256');
    // Streamed: a project may hold files far larger than memory should hold at once.
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
};
