import { watch } from 'node:fs';
import path from 'node:path';

/** A running {@link watchFolder}. */
export interface FolderWatch {
  close(): void;
}

/**
 * Tells `onChange` the path (relative to `dir`, `/`-separated) of each change the system reports in `dir` and
 * below (`fs.watch`, recursive: Linux since Node 20, macOS, Windows). Events only say where to look: a caller
 * checks the file itself, and rescans for what a dropped event missed. Undefined, after `onError`, when the
 * system offers no events here; a later failure goes to `onError` too.
 */
export function watchFolder(
  dir: string,
  onChange: (relative: string) => void,
  onError: (error: unknown) => void,
): FolderWatch | undefined {
  try {
    const watcher = watch(dir, { recursive: true }, (_event, filename) => {
      if (filename !== null) onChange(filename.split(path.sep).join('/'));
    });
    watcher.on('error', onError);
    return watcher;
  } catch (error) {
    onError(error);
    return undefined;
  }
}
