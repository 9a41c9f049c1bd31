import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A private folder of the system's temp folder, for files a child process reads (git's blobs, say). */
export interface ScratchFolder {
  readonly dir: string;
  /** Writes `bytes` as the file `name` of the folder; returns its path. */
  write(name: string, bytes: Uint8Array): Promise<string>;
}

/** Runs `use` with a fresh scratch folder (named `<prefix>XXXXXX`), removed afterwards whatever happens. */
export async function withScratchFolder<T>(
  prefix: string,
  use: (scratch: ScratchFolder) => Promise<T>,
): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), prefix));
  try {
    return await use({
      dir,
      write: async (name, bytes) => {
        const file = path.join(dir, name);
        await writeFile(file, bytes);
        return file;
      },
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
