import { join } from 'node:path';
import { AGENT_DIR, describeError } from '../project/index.js';
import { openConfinedRoot } from '../workspace/index.js';
import type {
  ConfinedFolder,
  ConfinedRoot,
  FileOpening,
  ReadRefusal,
  WriteRefusal,
} from '../workspace/index.js';
import { bytesToRead } from './bytes-to-read.js';
import { fileAppender } from './file-appender.js';
import { openObjectStore } from './object-store.js';
import type { ProjectStore, StoreEntry, StoredFileReader } from './project-store.js';
import { StoreError } from './store-error.js';
import { storeKeyComponents } from './store-key.js';

/**
 * The files implementation of the storage port: today's `.agent/` layout of the project at `projectDir`, byte for
 * byte. Every read and write goes through the confined walk rooted at the project (O_NOFOLLOW at every
 * component, `.agent` included), replaces are atomic renames and appends one O_APPEND write, fsynced unless the
 * caller asks for no durability. Nothing is opened until the first call; a store only read never creates
 * `.agent/`.
 */
export function openProjectStore(projectDir: string): ProjectStore {
  const location = join(projectDir, AGENT_DIR);
  let opened: Promise<ConfinedRoot> | undefined;
  const root = (): Promise<ConfinedRoot> => {
    opened ??= openConfinedRoot(projectDir).catch((error: unknown) => {
      // A project folder made after the store was opened (demo, a test) is found by the next call.
      opened = undefined;
      throw error;
    });
    return opened;
  };

  const refusedRead = (key: string, refusal: ReadRefusal): StoreError =>
    new StoreError({
      code: 'not_a_file',
      key,
      refusal: refusal.code,
      message: `${join(projectDir, refusal.relativePath)} is ${describeRefusal(refusal)}, not a file the store wrote; nothing is read through it: remove it`,
    });

  /** Opens the file under `key` for reading, or returns undefined when it is missing. */
  const openKey = async (key: string): Promise<Extract<FileOpening, { kind: 'opened' }> | undefined> => {
    storeKeyComponents(key);
    const opening = await (await root()).openFile(key);
    if (opening.kind === 'missing') return undefined;
    if (opening.kind === 'refused') throw refusedRead(key, opening);
    return opening;
  };

  const read: ProjectStore['read'] = async (key, options = {}) => {
    const opening = await openKey(key);
    if (opening === undefined) return undefined;
    try {
      if (options.maxBytes !== undefined && opening.stats.size > options.maxBytes) {
        throw new StoreError({
          code: 'too_large',
          key,
          message: `${join(projectDir, key)} holds ${String(opening.stats.size)} bytes, more than the ${String(options.maxBytes)} this read takes`,
        });
      }
      return new Uint8Array(await opening.handle.readFile());
    } finally {
      await opening.handle.close();
    }
  };

  /** A refused write; `cause`, the I/O error behind it, keeps its errno (EACCES, ENOSPC) for whoever reports it. */
  const refusedWrite = (key: string, message: string, refusal?: string, cause?: unknown): StoreError =>
    new StoreError({
      code: 'write_refused',
      key,
      message: `cannot write ${join(projectDir, key)}: ${message}`,
      ...(refusal === undefined ? {} : { refusal }),
      cause,
    });

  /** The store's error for a refusal of the confined writer: what stood where, in the project folder. */
  const refusedWriteOf = (key: string, refusal: WriteRefusal): StoreError =>
    refusal.at === undefined
      ? refusedWrite(key, refusal.message, refusal.code)
      : refusedWrite(
          key,
          `${join(projectDir, refusal.at)} is ${describeRefusal({ kind: 'refused', code: refusal.code as ReadRefusal['code'], relativePath: refusal.at })}; nothing in ${AGENT_DIR}/ is written through it: replace it with a real folder`,
          refusal.code,
        );

  /**
   * Walks to the folder holding `key` (made first for a write) and runs `use` on it with the key's last name;
   * `missing` when a read finds no folder.
   */
  const inFolderOf = async <T>(
    key: string,
    mode: 'read' | 'write',
    use: (folder: ConfinedFolder, name: string) => Promise<T>,
    missing: T,
  ): Promise<T> => {
    const components = storeKeyComponents(key);
    const name = components.pop() ?? '';
    const folderKey = [AGENT_DIR, ...components].join('/');
    const confined = await root();
    if (mode === 'write') {
      const made = await confined.makeDirectory(folderKey);
      if (made.status === 'refused') throw refusedWriteOf(key, made);
    }
    const opening = await confined.openFolder(folderKey);
    if (opening.kind === 'missing') return missing;
    if (opening.kind === 'refused') {
      throw mode === 'write'
        ? refusedWrite(
            key,
            `${join(projectDir, opening.relativePath)} is ${describeRefusal(opening)}`,
            opening.code,
          )
        : refusedRead(key, opening);
    }
    try {
      return await use(opening.folder, name);
    } finally {
      await opening.folder.close();
    }
  };

  return {
    kind: 'files',
    location,
    read,
    readText: async (key, options) => {
      const bytes = await read(key, options);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
    },
    info: async (key) => {
      const opening = await openKey(key);
      if (opening === undefined) return undefined;
      await opening.handle.close();
      return { size: opening.stats.size, modifiedMs: opening.stats.mtimeMs };
    },
    list: async (folder) => {
      storeKeyComponents(folder, { folder: true });
      const opening = await (await root()).openFolder(folder);
      if (opening.kind === 'missing') return [];
      if (opening.kind === 'refused') throw refusedRead(folder, opening);
      try {
        return (await opening.folder.list()).map((entry): StoreEntry => ({ ...entry }));
      } finally {
        await opening.folder.close();
      }
    },
    replace: async (key, content, options = {}) => {
      storeKeyComponents(key);
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const outcome = await (await root()).write(key, bytes, { durability: options.durability ?? 'fsync' });
      if (outcome.status === 'refused') throw refusedWriteOf(key, outcome);
    },
    append: async (key, lines, options = {}) => {
      storeKeyComponents(key);
      const outcome = await (
        await root()
      ).appendLines(key, lines, { durability: options.durability ?? 'fsync' });
      if (outcome.status === 'refused') throw refusedWriteOf(key, outcome);
    },
    remove: (key) =>
      inFolderOf(
        key,
        'read',
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
      await inFolderOf(key, 'read', (folder, name) => folder.removeIfHolds(name, content), undefined).catch(
        () => undefined,
      );
    },
    removeStale: (key, staleContent) =>
      inFolderOf(key, 'read', (folder, name) => folder.removeStale(name, staleContent), false),
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
    openObjects: (options) => openObjectStore(projectDir, options),
    close: async () => {
      const current = opened;
      opened = undefined;
      if (current !== undefined) await (await current.catch(() => undefined))?.close();
    },
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

function describeRefusal(refusal: ReadRefusal): string {
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
