import { constants } from 'node:fs';
import type { Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoOf } from '../errno-of.js';
import { lstatOrMissing } from '../lstat-or-missing.js';

/** What stands at a project-relative path below a folder of the project, read as a regular file. */
export type FileBelow =
  | { readonly kind: 'file'; readonly bytes: Uint8Array }
  | { readonly kind: 'missing' }
  /** `where` is the first path (the file or one of its folders) that is not what it should be; `what` names it. */
  | { readonly kind: 'not_a_file'; readonly where: string; readonly what: string };

/**
 * Reads the file at the project-relative `path` (`workspace/src/a.ts`) of the project at `projectDir`, never
 * following a link below its first folder (each component is lstat'ed, the file opened with O_NOFOLLOW) and never
 * writing. The first folder (`workspace/`) may be a link, as the confined writer resolves its root once.
 */
export async function inspectFileBelow(projectDir: string, path: string): Promise<FileBelow> {
  const segments = path.split('/');
  for (let end = 2; end <= segments.length; end += 1) {
    const where = segments.slice(0, end).join('/');
    const info = await lstatOrMissing(join(projectDir, where));
    if (info === undefined) return { kind: 'missing' };
    const wantFile = end === segments.length;
    if (wantFile ? !info.isFile() : !info.isDirectory())
      return { kind: 'not_a_file', where, what: kindOf(info) };
  }
  const bytes = await readRegularFile(join(projectDir, path));
  if (bytes === 'missing') return { kind: 'missing' };
  if (bytes === 'not_a_file') return { kind: 'not_a_file', where: path, what: 'something other than a file' };
  return { kind: 'file', bytes };
}

/**
 * The bytes of a regular file, re-checked on the open descriptor: O_NOFOLLOW refuses a link planted after the
 * lstat, and O_NONBLOCK keeps a FIFO planted there from blocking the open.
 */
async function readRegularFile(location: string): Promise<Uint8Array | 'missing' | 'not_a_file'> {
  let handle;
  try {
    handle = await open(location, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = errnoOf(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'missing';
    if (code === 'ELOOP' || code === 'ENXIO') return 'not_a_file';
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) return 'not_a_file';
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function kindOf(info: Stats): string {
  if (info.isSymbolicLink()) return 'a symlink';
  if (info.isDirectory()) return 'a folder';
  if (info.isFile()) return 'a file';
  return 'a special file (FIFO, socket or device)';
}
