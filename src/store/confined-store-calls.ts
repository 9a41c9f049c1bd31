import { read as readAt } from 'node:fs';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { AGENT_DIR, describeError } from '../project/index.js';
import type {
  ConfinedFolder,
  ConfinedRoot,
  FileOpening,
  ReadRefusal,
  WriteRefusal,
} from '../workspace/index.js';
import { bytesToRead } from './bytes-to-read.js';
import { fileAppender } from './file-appender.js';
import type { ProjectStore, StoredFileReader } from './project-store.js';
import { StoreError } from './store-error.js';
import { checkReadRange, storeKeyComponents } from './store-key.js';

/** Where the files store reaches a key: a confined root, that root's folder below the project, the key below it. */
export interface Placement {
  readonly root: ConfinedRoot;
  /** The root's folder below the project: '' for the project folder itself, else a folder key (`.agent/index`). */
  readonly at: string;
  /** The key's path below the root. */
  readonly below: string;
  /** For a read: the key's own folder, already open below the root (a session's), so no walk is made. */
  readonly folder?: ConfinedFolder;
}

/**
 * How a call reaches its key: `read` finds what is there (and may look again when nothing is), `write` makes the
 * key's folders, `update` changes what is there without making anything (remove, release a lock).
 */
export type Reach = 'read' | 'write' | 'update';

/** Runs `use` on the placement of `key` (a checked key) for a call of kind `reach`. */
export type Within = <T>(key: string, reach: Reach, use: (placement: Placement) => Promise<T>) => Promise<T>;

/** The calls of the files store that name one key, each through the confined root `within` gives it. */
export type KeyedCalls = Pick<
  ProjectStore,
  | 'read'
  | 'readText'
  | 'info'
  | 'readFrom'
  | 'replace'
  | 'append'
  | 'remove'
  | 'createExclusive'
  | 'removeIfHolds'
  | 'removeStale'
  | 'openReader'
  | 'openAppender'
>;

/**
 * The keyed calls of the files store of the project at `projectDir`: reads open the file through the confined walk
 * (O_NOFOLLOW at every component, a FIFO or a file with two names refused), replaces are the confined writer's
 * atomic renames and appends its one O_APPEND write, fsynced unless the caller asks for no durability.
 */
export function confinedStoreCalls(projectDir: string, within: Within): KeyedCalls {
  const refusedRead = (key: string, at: string, refusal: ReadRefusal): StoreError =>
    readRefused(projectDir, key, at, refusal);
  const refusedWrite = (key: string, message: string, refusal?: string, cause?: unknown): StoreError =>
    writeRefused(projectDir, key, message, refusal, cause);

  /**
   * The store's error for a refusal of the confined writer at a root whose folder is `at` below the project: what
   * stood where, in the project folder.
   */
  const refusedWriteOf = (key: string, at: string, refusal: WriteRefusal): StoreError =>
    refusal.at === undefined
      ? refusedWrite(key, refusal.message, refusal.code)
      : refusedWrite(
          key,
          `${join(projectDir, at, refusal.at)} is ${describeRefusal({ kind: 'refused', code: refusal.code as ReadRefusal['code'], relativePath: refusal.at })}; nothing in ${AGENT_DIR}/ is written through it: replace it with a real folder`,
          refusal.code,
        );

  type Opened = Extract<FileOpening, { kind: 'opened' }>;

  /** Opens the file under `key` for reading, or returns undefined when it is missing; the caller closes it. */
  const openKey = async (key: string): Promise<Opened | undefined> => {
    storeKeyComponents(key);
    return await within(key, 'read', async ({ root, at, below, folder }) => {
      const opening =
        folder === undefined ? await root.openFile(below) : await folder.openFile(lastNameOf(below));
      if (opening.kind === 'missing') return undefined;
      if (opening.kind === 'refused') throw refusedRead(key, at, opening);
      return opening;
    });
  };

  /** Runs `use` on the file under `key` opened for reading, or returns undefined when it is missing. */
  const withOpenedKey = async <T>(
    key: string,
    use: (opened: Opened) => Promise<T>,
  ): Promise<T | undefined> => {
    const opening = await openKey(key);
    if (opening === undefined) return undefined;
    try {
      return await use(opening);
    } finally {
      await opening.handle.close();
    }
  };

  const read: ProjectStore['read'] = (key, options = {}) =>
    withOpenedKey(key, async ({ handle, stats }) => {
      if (options.maxBytes !== undefined && stats.size > options.maxBytes) {
        throw new StoreError({
          code: 'too_large',
          key,
          message: `${join(projectDir, key)} holds ${String(stats.size)} bytes, more than the ${String(options.maxBytes)} this read takes`,
        });
      }
      const bytes = await readThroughPool(handle.fd, stats.size);
      // A view, not a copy: the buffer was allocated for this read alone.
      return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    });

  /**
   * Walks to the folder holding `key` below its root (made first for a write) and runs `use` on it with the key's
   * last name; `missing` when a read finds no folder.
   */
  const inFolderOf = async <T>(
    key: string,
    reach: Reach,
    use: (folder: ConfinedFolder, name: string, at: string) => Promise<T>,
    missing: T,
  ): Promise<T> => {
    storeKeyComponents(key);
    return await within(key, reach, async ({ root, at, below, folder }) => {
      const components = below.split('/');
      const name = components.pop() ?? '';
      const folderPath = components.join('/');
      if (folder !== undefined) return await use(folder, name, at);
      if (reach === 'write' && folderPath !== '') {
        const made = await root.makeDirectory(folderPath);
        if (made.status === 'refused') throw refusedWriteOf(key, at, made);
      }
      const opening = await root.openFolder(folderPath);
      if (opening.kind === 'missing') return missing;
      if (opening.kind === 'refused') {
        throw reach === 'write'
          ? refusedWrite(
              key,
              `${join(projectDir, at, opening.relativePath)} is ${describeRefusal(opening)}`,
              opening.code,
            )
          : refusedRead(key, at, opening);
      }
      try {
        return await use(opening.folder, name, at);
      } finally {
        await opening.folder.close();
      }
    });
  };

  /**
   * The lstat of the regular file under `key`, taken in its folder without opening it (for `info` and an empty
   * `readFrom`: no open, so no read can wait), refused as a read refuses; undefined when nothing is there.
   */
  const statKey = (key: string): Promise<Stats | undefined> =>
    inFolderOf(
      key,
      'read',
      async (folder, name, at) => {
        const stats = await folder.stat(name);
        if (stats === undefined) return undefined;
        const code = refusalCodeOf(stats);
        if (code === undefined) return stats;
        const relativePath = folder.relativePath === '' ? name : `${folder.relativePath}/${name}`;
        throw refusedRead(key, at, { kind: 'refused', code, relativePath });
      },
      undefined,
    );

  return {
    read,
    readText: async (key, options) => {
      const bytes = await read(key, options);
      return bytes === undefined
        ? undefined
        : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    },
    info: async (key) => {
      const stats = await statKey(key);
      return stats === undefined ? undefined : { size: stats.size, modifiedMs: stats.mtimeMs };
    },
    readFrom: async (key, from, length) => {
      checkReadRange(from, length);
      if (length === 0) {
        const stats = await statKey(key);
        return stats === undefined
          ? undefined
          : { bytes: new Uint8Array(), size: stats.size, version: versionOf(stats) };
      }
      return await withOpenedKey(key, async ({ handle, stats }) => {
        const end = length === undefined ? stats.size : Math.min(stats.size, from + length);
        const bytes = Buffer.alloc(Math.max(0, end - from));
        let at = 0;
        while (at < bytes.byteLength) {
          const { bytesRead } = await handle.read(bytes, at, bytes.byteLength - at, from + at);
          if (bytesRead === 0) break;
          at += bytesRead;
        }
        return {
          bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, at),
          size: stats.size,
          version: versionOf(stats),
        };
      });
    },
    replace: async (key, content, options = {}) => {
      storeKeyComponents(key);
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      await within(key, 'write', async ({ root, at, below }) => {
        const outcome = await root.write(below, bytes, { durability: options.durability ?? 'fsync' });
        if (outcome.status === 'refused') throw refusedWriteOf(key, at, outcome);
      });
    },
    append: async (key, lines, options = {}) => {
      storeKeyComponents(key);
      await within(key, 'write', async ({ root, at, below }) => {
        const outcome = await root.appendLines(below, lines, { durability: options.durability ?? 'fsync' });
        if (outcome.status === 'refused') throw refusedWriteOf(key, at, outcome);
      });
    },
    remove: (key) =>
      inFolderOf(
        key,
        'update',
        async (folder, name) => {
          if ((await folder.stat(name))?.isDirectory() === true) throw refusedWrite(key, 'it is a folder');
          return folder.remove(name);
        },
        false,
      ),
    createExclusive: (key, content, options = {}) =>
      inFolderOf(
        key,
        'write',
        (folder, name) =>
          folder.createExclusive(name, content, { durability: options.durability ?? 'fsync' }),
        false,
      ),
    removeIfHolds: async (key, content) => {
      storeKeyComponents(key);
      // Never throws (a release must not fail what it ends): a lock behind a symlink is not ours to remove.
      await inFolderOf(key, 'update', (folder, name) => folder.removeIfHolds(name, content), undefined).catch(
        () => undefined,
      );
    },
    removeStale: (key, staleContent) =>
      inFolderOf(key, 'update', (folder, name) => folder.removeStale(name, staleContent), false),
    openReader: async (key) => {
      const opening = await openKey(key);
      return opening === undefined ? undefined : fileReader(opening);
    },
    openAppender: (key) =>
      inFolderOf(
        key,
        'write',
        async (folder, name) => {
          try {
            return fileAppender(await folder.openAppend(name));
          } catch (error) {
            const errno = (error as { code?: unknown }).code;
            throw refusedWrite(key, describeError(error), errno === 'ELOOP' ? 'symlink' : undefined, error);
          }
        },
        undefined,
      ).then((appender) => {
        if (appender === undefined) throw refusedWrite(key, 'its folder could not be made');
        return appender;
      }),
  };
}

/** A reader of an opened file, its size taken from the fstat of the opening: reads never go past it. */
function fileReader({ handle, stats }: Extract<FileOpening, { kind: 'opened' }>): StoredFileReader {
  let closed = false;
  return {
    size: stats.size,
    read: async (position, length) => {
      if (closed) throw new Error('the reader is closed');
      const bytes = new Uint8Array(bytesToRead(stats.size, position, length));
      let filled = 0;
      while (filled < bytes.byteLength) {
        const { bytesRead } = await handle.read(bytes, filled, bytes.byteLength - filled, position + filled);
        // Truncated since it was opened (the store never does that): what is there is what is read.
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      return bytes.subarray(0, filled);
    },
    close: async () => {
      closed = true;
      await handle.close();
    },
  };
}

/** The last name of a `/`-separated path. */
function lastNameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Which file `stats` are of, among those stored under one key over time. */
function versionOf(stats: Stats): string {
  // An inode number may be reused once its file is removed; its birth time tells the new file from the old.
  return `${String(stats.dev)}:${String(stats.ino)}:${String(stats.birthtimeMs)}`;
}

/** Why a read refuses the entry an lstat found, as the confined read judges it; undefined for a file it reads. */
function refusalCodeOf(stats: Stats): ReadRefusal['code'] | undefined {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'is_a_directory';
  if (!stats.isFile()) return 'not_a_regular_file';
  // A file with a second name may be a file outside the project's.
  return stats.nlink > 1 ? 'hard_link' : undefined;
}

/**
 * The bytes of the open file `fd` from its start to its end, read through libuv's pool (D81: a query may read many
 * large records files, and the event loop keeps turning meanwhile); one call when the file kept its size, and then
 * no copy: the answer is a view of the one buffer read into, which belongs to this read alone.
 */
async function readThroughPool(fd: number, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let position = 0;
  for (;;) {
    // One byte more than the size: a short read is the end of a regular file, with no second call to find it.
    // Its own memory (not the shared pool of small Buffers), so the view handed out shows nothing else.
    const chunk = Buffer.allocUnsafeSlow(Math.max(size - position, 0) + 1);
    const bytesRead = await new Promise<number>((resolve, reject) => {
      readAt(fd, chunk, 0, chunk.byteLength, position, (error, count) => {
        if (error === null) resolve(count);
        else reject(error);
      });
    });
    chunks.push(chunk.subarray(0, bytesRead));
    position += bytesRead;
    if (bytesRead < chunk.byteLength) {
      const [only] = chunks;
      return chunks.length === 1 && only !== undefined ? only : Buffer.concat(chunks, position);
    }
  }
}

/**
 * The error of a read the confined walk refused below the root at `at` (a folder key, '' for the project): what
 * is in the file's place, named by its path.
 */
export function readRefused(projectDir: string, key: string, at: string, refusal: ReadRefusal): StoreError {
  const path = join(projectDir, at, refusal.relativePath);
  return new StoreError({
    code: 'not_a_file',
    key,
    refusal: refusal.code,
    message: `${path} is ${describeRefusal(refusal)}, not a file the store wrote; nothing is read through it: remove it`,
    cause: notRegularFileCause(path, refusal),
  });
}

/**
 * The error of a write the store would not make, with the writer's reason; `refusal` names what stood in the way,
 * and `cause`, the I/O error behind it, keeps its errno (EACCES, ENOSPC) for whoever reports it.
 */
export function writeRefused(
  projectDir: string,
  key: string,
  message: string,
  refusal?: string,
  cause?: unknown,
): StoreError {
  return new StoreError({
    code: 'write_refused',
    key,
    message: `cannot write ${join(projectDir, key)}: ${message}`,
    ...(refusal === undefined ? {} : { refusal }),
    cause,
  });
}

/**
 * For a folder, FIFO, socket or device where a file is read: the error a plain read gives (EISDIR, EINVAL; the shape
 * of `readRegularFile`'s), kept as the refusal's cause for readers that have always reported it (docs/security.md).
 */
function notRegularFileCause(path: string, refusal: ReadRefusal): Error | undefined {
  if (refusal.code !== 'is_a_directory' && refusal.code !== 'not_a_regular_file') return undefined;
  const code = refusal.code === 'is_a_directory' ? 'EISDIR' : 'EINVAL';
  return Object.assign(
    new Error(
      `${code}: not a regular file, read '${path}' (${describeRefusal(refusal)} is in its place; remove it)`,
    ),
    { code, syscall: 'read', path },
  );
}

/** What a refused read found in place of a file or folder, as messages name it. */
export function describeRefusal(refusal: ReadRefusal): string {
  switch (refusal.code) {
    case 'symlink':
      return refusal.swapped === true ? 'a folder that moved while it was read' : 'a symlink';
    case 'is_a_directory':
      return 'a folder';
    case 'not_a_regular_file':
      return 'a FIFO, socket or device';
    case 'hard_link':
      return 'a file with more than one name (a hard link)';
    case 'not_a_directory':
      return 'a file where a folder should be';
  }
}
