import { StoreError, usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';

/**
 * The names of the `.json` files of a folder of the project's store, sorted; an empty list when the folder does
 * not exist (or a file stands in its place), and the error when it cannot be listed (a report says so rather than
 * failing).
 */
export async function listJsonFiles(
  project: ProjectRef,
  folder: string,
): Promise<{ readonly names: readonly string[] } | { readonly error: unknown }> {
  try {
    const entries = await usingProject(project, ({ store }) => store.list(folder));
    const names = entries
      .filter((entry) => entry.kind === 'file' && entry.name.endsWith('.json'))
      .map((entry) => entry.name)
      .sort();
    return { names };
  } catch (error) {
    if (error instanceof StoreError && error.refusal === 'not_a_directory') return { names: [] };
    return { error };
  }
}
