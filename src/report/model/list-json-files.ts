import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { errnoOf } from '../../workspace/index.js';

/**
 * The names of the `.json` files of a project folder, sorted; an empty list when the folder does not exist, and
 * the error when it cannot be listed (a report says so rather than failing).
 */
export async function listJsonFiles(
  projectDir: string,
  folder: string,
): Promise<{ readonly names: readonly string[] } | { readonly error: unknown }> {
  try {
    const entries = await readdir(path.join(projectDir, folder), { withFileTypes: true });
    const names = entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name)
      .sort();
    return { names };
  } catch (error) {
    if (errnoOf(error) === 'ENOENT' || errnoOf(error) === 'ENOTDIR') return { names: [] };
    return { error };
  }
}
