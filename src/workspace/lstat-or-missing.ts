import type { Stats } from 'node:fs';
import { lstat } from './quick-fs.js';
import { errnoOf } from './errno-of.js';

/** The entry's lstat (never following a link), or undefined when nothing is there. */
export async function lstatOrMissing(location: string): Promise<Stats | undefined> {
  try {
    return await lstat(location);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}
