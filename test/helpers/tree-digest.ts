import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';

/**
 * A digest of everything below `dir` (paths, kinds, modes, bytes, link targets), to show that a refused
 * operation wrote nothing anywhere in a project, `.agent/` included.
 */
export async function treeDigest(dir: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (relative: string): Promise<void> => {
    const names = (await readdir(path.join(dir, relative))).sort();
    for (const name of names) {
      const child = relative === '' ? name : `${relative}/${name}`;
      const absolute = path.join(dir, child);
      const info = await lstat(absolute);
      const mode = (info.mode & 0o7777).toString(8);
      if (info.isDirectory()) {
        hash.update(`d ${child} ${mode}\n`);
        await walk(child);
      } else if (info.isSymbolicLink()) hash.update(`l ${child} -> ${await readlink(absolute)}\n`);
      else if (info.isFile())
        hash.update(
          `f ${child} ${mode} ${createHash('sha256')
            .update(await readFile(absolute))
            .digest('hex')}\n`,
        );
      else hash.update(`o ${child}\n`);
    }
  };
  await walk('');
  return hash.digest('hex');
}
