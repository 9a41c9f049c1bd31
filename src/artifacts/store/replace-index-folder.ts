import type { ConfinedRoot } from '../../workspace/index.js';

/**
 * Replaces the files of the index folder `folder` (project-relative) with what `fill` writes into a staging
 * folder beside it: each staged file is renamed over its counterpart and files it did not write are removed
 * (`publish({ mode: 'files' })`), so a reader of one file sees the old one or the new one, never none. The
 * staging folder is discarded whatever happens; a crash before the publish leaves only it, which nothing reads.
 */
export async function replaceIndexFolder<T>(
  root: ConfinedRoot,
  folder: string,
  fill: (files: ConfinedRoot) => Promise<T>,
): Promise<T> {
  const staging = await root.stage(folder);
  if ('status' in staging) throw new Error(`cannot rebuild ${folder}: ${staging.message}`);
  try {
    const filled = await fill(staging.files);
    const published = await staging.publish({ mode: 'files' });
    if (published.status !== 'published') {
      throw new Error(
        `cannot publish ${folder}: ${published.status === 'exists' ? 'it exists' : published.message}`,
      );
    }
    return filled;
  } finally {
    await staging.discard();
  }
}
