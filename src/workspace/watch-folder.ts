import { lstatSync, readdirSync, watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';
import { errnoOf } from './errno-of.js';

/** A running {@link watchFolder}. */
export interface FolderWatch {
  close(): void;
}

/**
 * Tells `onChange` the path (relative to `dir`, `/`-separated) of each change the system reports in `dir` and
 * below. Events only say where to look: a caller checks the file itself, and rescans for what a dropped event
 * missed. Undefined, after `onError`, when the system offers no events here; a later failure goes to `onError` too.
 *
 * On Linux each folder has a watcher of its own (inotify reports every name, a file created and renamed away in
 * one turn of the event loop too), and folders made later are added as they appear, reporting what they already
 * hold; Node's `recursive` there checks each name it is told of and drops those already gone, such as a writer's
 * temp file renamed into place (D132). Elsewhere `fs.watch` is recursive natively (macOS, Windows). Folders whose
 * name starts with a dot are not watched (no document is read below one).
 */
export function watchFolder(
  dir: string,
  onChange: (relative: string) => void,
  onError: (error: unknown) => void,
): FolderWatch | undefined {
  try {
    if (process.platform === 'linux') return watchEachFolder(dir, onChange, onError);
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

/** One plain watcher per folder of the tree; throws when `dir` itself cannot be watched. */
function watchEachFolder(
  dir: string,
  onChange: (relative: string) => void,
  onError: (error: unknown) => void,
): FolderWatch {
  const watchers = new Map<string, FSWatcher>();
  let warned = false;
  /** A folder that could not be watched: said once (the caller's rescan finds what happens there). */
  const warn = (error: unknown): void => {
    if (warned) return;
    warned = true;
    onError(error);
  };
  const forget = (relative: string): void => {
    for (const [folder, watcher] of watchers) {
      if (relative === '' || folder === relative || folder.startsWith(`${relative}/`)) {
        watcher.close();
        watchers.delete(folder);
      }
    }
  };
  /** Watches the folder `relative` and those below it; `announce`: report what they hold (made after the start). */
  const add = (relative: string, announce: boolean): void => {
    if (watchers.has(relative)) return;
    const folder = relative === '' ? dir : path.join(dir, relative);
    const watcher = watch(folder, (event, filename) => {
      if (filename === null) return;
      const child = relative === '' ? filename : `${relative}/${filename}`;
      onChange(child);
      if (event === 'rename') follow(child);
    });
    watcher.on('error', (error) => {
      forget(relative);
      if (relative === '') onError(error);
    });
    watchers.set(relative, watcher);
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (announce) onChange(child);
      if (entry.isDirectory() && !entry.name.startsWith('.')) tryAdd(child, announce);
    }
  };
  const tryAdd = (relative: string, announce: boolean): void => {
    try {
      add(relative, announce);
    } catch (error) {
      forget(relative);
      // Gone again before it could be watched: nothing there to report.
      if (!['ENOENT', 'ENOTDIR'].includes(errnoOf(error) ?? '')) warn(error);
    }
  };
  /** A name that came or went: a new folder is watched, a folder gone (or replaced by a file) is let go. */
  const follow = (relative: string): void => {
    let isFolder = false;
    try {
      isFolder = lstatSync(path.join(dir, relative)).isDirectory();
    } catch {
      // Gone: renamed away or deleted.
    }
    if (!isFolder) forget(relative);
    else if (!path.posix.basename(relative).startsWith('.')) tryAdd(relative, true);
  };
  try {
    add('', false);
  } catch (error) {
    forget('');
    throw error;
  }
  return {
    close: () => {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
