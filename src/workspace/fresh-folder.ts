import { cp, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** The file that marks a folder as one this code made, so making it fresh again may empty it. */
export interface FolderMarker {
  readonly name: string;
  readonly text: string;
}

/**
 * Makes `dir` a fresh folder holding only its marker file: created when missing, emptied and made again when it
 * holds the marker (a folder made here before). A folder without the marker is someone else's and is left as it
 * is: the answer is then false, and nothing was touched.
 */
export async function makeFreshMarkedFolder(dir: string, marker: FolderMarker): Promise<boolean> {
  const existing = await stat(dir).catch(() => null);
  if (existing !== null) {
    const marked = await stat(path.join(dir, marker.name)).catch(() => null);
    if (marked === null) return false;
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, marker.name), marker.text);
  return true;
}

/**
 * Fills a fresh folder from the package's own files: a copy of the folder tree `from` at `to`, and text files by
 * name. Only for a folder {@link makeFreshMarkedFolder} just made, where nothing else can be in the way.
 */
export async function fillFreshFolder(
  dir: string,
  contents: {
    readonly trees?: Readonly<Record<string, string>>;
    readonly files?: Readonly<Record<string, string>>;
  },
): Promise<void> {
  for (const [name, from] of Object.entries(contents.trees ?? {})) {
    await cp(from, path.join(dir, name), { recursive: true });
  }
  for (const [name, text] of Object.entries(contents.files ?? {})) {
    await writeFile(path.join(dir, name), text);
  }
}
