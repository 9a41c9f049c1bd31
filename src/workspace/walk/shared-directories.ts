import type { DirectoryHandle, RootAnchor, WalkOptions, WalkResult } from './directory-handle.js';
import type { DirectoryWalk } from './directory-handle.js';
import { WorkspaceError, workspaceErrorFrom } from '../workspace-error.js';

/** Folders of a write batch whose sync failed, with the paths renamed into them that are therefore not durable. */
export interface UnsyncedDirectory {
  /** The folder below the root, `/`-separated ('' for the root). */
  readonly directory: string;
  /** The normalized paths written into it by the batch. */
  readonly paths: readonly string[];
  readonly error: WorkspaceError;
}

/** A walk that opens each directory once for a batch of writes, and defers their directory syncs to `finish`. */
export interface SharedDirectories {
  /** Walks to `directories` like the root's walk, handing out the handle opened by an earlier write when there is one. */
  walk(directories: readonly string[], options: WalkOptions): Promise<WalkResult>;
  /** Notes that `path` was written into `directory` and its rename awaits the directory's sync. */
  written(directory: string, path: string): void;
  /** Syncs each noted directory once, then closes every opened one; returns the directories that failed to sync. */
  finish(): Promise<UnsyncedDirectory[]>;
}

/**
 * Shares opened directories between the writes of one batch: each stays as confined as a fresh walk, because
 * every write re-checks its directory's location before and after its rename; only the walk and the directory
 * fsync (once per directory, after the last rename into it, instead of once per file) are saved.
 */
export function shareDirectories(root: RootAnchor, walk: DirectoryWalk): SharedDirectories {
  const opened = new Map<string, Promise<WalkResult>>();
  const handles = new Map<string, DirectoryHandle>();
  const pending = new Map<string, string[]>();
  return {
    walk(directories, options) {
      const key = directories.join('/');
      const known = opened.get(key);
      if (known !== undefined) return known;
      const reached = walk(root, directories, options).then((result) => {
        // Only an opened directory is kept: a missing or refused one is walked again by the next write.
        if (result.kind !== 'opened') {
          opened.delete(key);
          return result;
        }
        handles.set(key, result.directory);
        return { kind: 'opened', directory: deferringSync(result.directory) } as const;
      });
      reached.catch(() => opened.delete(key));
      opened.set(key, reached);
      return reached;
    },
    written(directory, path) {
      const paths = pending.get(directory);
      if (paths === undefined) pending.set(directory, [path]);
      else paths.push(path);
    },
    async finish() {
      await Promise.allSettled(opened.values());
      const unsynced: UnsyncedDirectory[] = [];
      try {
        // All at once: after the first sync commits the journal, the others mostly find their renames committed.
        await Promise.all(
          [...pending].map(async ([directory, paths]) => {
            try {
              await handles.get(directory)?.sync();
            } catch (error) {
              const failure =
                error instanceof WorkspaceError ? error : workspaceErrorFrom(error, 'fsync', directory);
              unsynced.push({ directory, paths, error: failure });
            }
          }),
        );
      } finally {
        pending.clear();
        opened.clear();
        const closing = [...handles.values()];
        handles.clear();
        await Promise.allSettled(closing.map((handle) => handle.close()));
      }
      return unsynced;
    },
  };
}

/** The batch's view of a shared directory: its sync waits for `finish`, and only `finish` closes it. */
function deferringSync(directory: DirectoryHandle): DirectoryHandle {
  return {
    relativePath: directory.relativePath,
    expectedLocation: directory.expectedLocation,
    entry: (name) => directory.entry(name),
    locate: () => directory.locate(),
    sync: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
