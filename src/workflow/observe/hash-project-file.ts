import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readlink } from 'node:fs/promises';

/** Computes the sha256 hex of one file of the project (its lstat size given); injectable so tests count reads. */
export type ProjectFileHasher = (
  absolutePath: string,
  kind: 'file' | 'symlink',
  size: number,
) => Promise<string>;

/** Files up to this size are read in one call; larger ones are streamed so memory stays flat. */
const WHOLE_READ_BYTES = 1024 * 1024;

/** The default hasher: reads a file through O_NOFOLLOW (never through a link), or hashes a symlink's own text. */
export const hashProjectFile: ProjectFileHasher = async (absolutePath, kind, size) => {
  if (kind === 'symlink') {
    return createHash('sha256')
      .update(await readlink(absolutePath))
      .digest('hex');
  }
  const handle = await open(absolutePath, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const hash = createHash('sha256');
    if (size <= WHOLE_READ_BYTES) {
      // The size is the lstat's: a file that grew since is still read whole, only in one larger call.
      hash.update(await handle.readFile());
    } else {
      for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    }
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
};
