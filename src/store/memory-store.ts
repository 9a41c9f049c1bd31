import { AGENT_DIR } from '../project/index.js';
import { bytesToRead } from './bytes-to-read.js';
import { contentHashOf } from './content-hash.js';
import { objectsAtKeys } from './keyed-objects.js';
import { readOnlyObjects } from './object-store.js';
import type { ProjectStore, StoreEntry } from './project-store.js';
import { StoreError } from './store-error.js';
import { checkKeyBelow, checkReadRange, storeKeyComponents } from './store-key.js';

/** One stored file: its bytes, when they were written, and which file it is (kept by appends, new on replace). */
interface MemoryFile {
  readonly bytes: Uint8Array;
  readonly modifiedMs: number;
  readonly version: number;
}

/**
 * The memory implementation of the storage port: the same keys as the files store, kept in this process (for
 * tests, and for library users who want nothing on disk). Objects live under their layout keys, so what lists,
 * reads or damages a key sees them as the files store's readers do. Every read returns a copy.
 */
export function createMemoryStore(): ProjectStore {
  const files = new Map<string, MemoryFile>();
  let versions = 0;

  const copyOf = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);

  /** Throws `write_refused` when a folder stands at `key` or a file stands where one of its folders goes. */
  const checkWritable = (key: string): void => {
    const components = storeKeyComponents(key);
    for (let depth = 1; depth < components.length; depth++) {
      const folder = [AGENT_DIR, ...components.slice(0, depth)].join('/');
      if (files.has(folder)) throw refused(key, `${folder} is a file, not a folder`);
    }
    if (isFolder(key)) throw refused(key, 'it is a folder');
  };

  const isFolder = (key: string): boolean => {
    const prefix = `${key}/`;
    for (const stored of files.keys()) if (stored.startsWith(prefix)) return true;
    return false;
  };

  const fileAt = (key: string): MemoryFile | undefined => {
    storeKeyComponents(key);
    const file = files.get(key);
    if (file === undefined && isFolder(key)) {
      throw new StoreError({
        code: 'not_a_file',
        key,
        message: `memory store: ${key} is a folder, not a file`,
      });
    }
    return file;
  };

  /** Whether `key` holds exactly the UTF-8 of `content`. */
  const holds = (key: string, content: string): boolean => {
    storeKeyComponents(key);
    const file = files.get(key);
    return file !== undefined && Buffer.from(file.bytes).equals(Buffer.from(content, 'utf8'));
  };

  const read: ProjectStore['read'] = (key, options = {}) => {
    const file = fileAt(key);
    if (file === undefined) return Promise.resolve(undefined);
    if (options.maxBytes !== undefined && file.bytes.byteLength > options.maxBytes) {
      throw new StoreError({
        code: 'too_large',
        key,
        message: `memory store: ${key} holds ${String(file.bytes.byteLength)} bytes, more than the ${String(options.maxBytes)} this read takes`,
      });
    }
    return Promise.resolve(copyOf(file.bytes));
  };

  const replace = (key: string, bytes: Uint8Array): void => {
    checkWritable(key);
    files.set(key, { bytes: copyOf(bytes), modifiedMs: Date.now(), version: ++versions });
  };

  /**
   * The keys of `staged` (files written aside for `folder`), sorted, once checked to fit: no file where `folder` or
   * one above it goes, no staged file where another staged file needs a folder. Throws `write_refused` otherwise.
   */
  const checkPlaceable = (
    folder: string,
    components: readonly string[],
    staged: ReadonlyMap<string, Uint8Array>,
  ): string[] => {
    const keys = [...staged.keys()].sort();
    for (let depth = 1; depth <= components.length; depth++) {
      const above = [AGENT_DIR, ...components.slice(0, depth)].join('/');
      if (files.has(above)) throw refused(folder, `${above} is a file, not a folder`);
    }
    for (const key of keys) {
      for (let slash = key.indexOf('/', folder.length + 1); slash !== -1; slash = key.indexOf('/', slash + 1))
        if (staged.has(key.slice(0, slash)))
          throw refused(key, `${key.slice(0, slash)} is a file, not a folder`);
    }
    return keys;
  };

  /** Appends `lines` to the file under `key` (a checked, writable key), which keeps its version. */
  const appendTo = (key: string, lines: string): void => {
    const before = files.get(key);
    files.set(key, {
      bytes: Buffer.concat([before?.bytes ?? new Uint8Array(), Buffer.from(lines, 'utf8')]),
      modifiedMs: Date.now(),
      version: before?.version ?? ++versions,
    });
  };

  const store: ProjectStore = {
    kind: 'memory',
    location: 'memory',
    read: (key, options) => call(() => read(key, options)),
    readText: (key, options) =>
      call(async () => {
        const bytes = await read(key, options);
        return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
      }),
    info: (key) =>
      call(() => {
        const file = fileAt(key);
        return file === undefined ? undefined : { size: file.bytes.byteLength, modifiedMs: file.modifiedMs };
      }),
    list: (folder) =>
      call(() => {
        storeKeyComponents(folder, { folder: true });
        const prefix = `${folder}/`;
        const entries = new Map<string, StoreEntry['kind']>();
        for (const key of files.keys()) {
          if (!key.startsWith(prefix)) continue;
          const rest = key.slice(prefix.length);
          const slash = rest.indexOf('/');
          const name = slash === -1 ? rest : rest.slice(0, slash);
          entries.set(name, slash === -1 ? 'file' : 'folder');
        }
        return [...entries]
          .map(([name, kind]): StoreEntry => ({ name, kind }))
          .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      }),
    replace: (key, content) =>
      call(() => {
        replace(key, typeof content === 'string' ? Buffer.from(content, 'utf8') : content);
      }),
    append: (key, lines) =>
      call(() => {
        if (lines !== '' && !lines.endsWith('\n')) {
          // Misuse, as for the files store: a reader treats text after the last newline as an interrupted write.
          throw new Error(`append: text for ${key} must end with a newline`);
        }
        checkWritable(key);
        appendTo(key, lines);
      }),
    remove: (key) =>
      call(() => {
        checkWritable(key);
        return files.delete(key);
      }),
    createExclusive: (key, content) =>
      call(() => {
        checkWritable(key);
        if (files.has(key)) return false;
        replace(key, Buffer.from(content, 'utf8'));
        return true;
      }),
    removeIfHolds: (key, content) =>
      call(() => {
        if (holds(key, content)) files.delete(key);
      }),
    removeStale: (key, staleContent) =>
      call(() => {
        if (!holds(key, staleContent)) return false;
        return files.delete(key);
      }),
    openReader: (key) =>
      call(() => {
        const file = fileAt(key);
        if (file === undefined) return undefined;
        // Every write stores new bytes and never changes these: the reader keeps what was there when opened.
        const { bytes } = file;
        let closed = false;
        return {
          size: bytes.byteLength,
          read: (position: number, length: number) =>
            call(() => {
              if (closed) throw new Error('the reader is closed');
              return bytes.slice(position, position + bytesToRead(bytes.byteLength, position, length));
            }),
          close: () => {
            closed = true;
            return Promise.resolve();
          },
        };
      }),
    openAppender: (key) =>
      call(() => {
        checkWritable(key);
        let closed = false;
        return {
          write: (lines: string) => {
            if (closed) throw new Error('the appender is closed');
            // A memory file never ends inside a line: every write lands whole.
            appendTo(key, lines);
          },
          sync: () => Promise.resolve(),
          close: () => {
            closed = true;
            return Promise.resolve();
          },
        };
      }),
    readFrom: (key, from, length) =>
      call(() => {
        checkReadRange(from, length);
        const file = fileAt(key);
        if (file === undefined) return undefined;
        const end = length === undefined ? undefined : from + length;
        return {
          bytes: copyOf(file.bytes.subarray(from, end)),
          size: file.bytes.byteLength,
          version: String(file.version),
        };
      }),
    replaceFolder: async (folder, fill) => {
      const components = storeKeyComponents(folder);
      const staged = new Map<string, Uint8Array>();
      const filled = await fill({
        write: (key, content) =>
          call(() => {
            checkKeyBelow(folder, key);
            staged.set(key, typeof content === 'string' ? Buffer.from(content, 'utf8') : copyOf(content));
          }),
      });
      const keys = checkPlaceable(folder, components, staged);
      // One synchronous step: no reader sees a mix of the old and the new files.
      for (const key of [...files.keys()]) if (key.startsWith(`${folder}/`)) files.delete(key);
      for (const key of keys) replace(key, staged.get(key) ?? new Uint8Array());
      return filled;
    },
    createFolder: async (folder, fill) => {
      const components = storeKeyComponents(folder);
      const staged = new Map<string, Uint8Array>();
      const checked = (key: string): string => {
        checkKeyBelow(folder, key, 'createFolder');
        return key;
      };
      const filled = await fill({
        write: (key, content) =>
          call(() => {
            staged.set(
              checked(key),
              typeof content === 'string' ? Buffer.from(content, 'utf8') : copyOf(content),
            );
          }),
        writeStream: async (key, chunks, expectedSha256) => {
          checked(key);
          const parts: Uint8Array[] = [];
          for await (const chunk of chunks) parts.push(chunk);
          const bytes = Buffer.concat(parts);
          if (contentHashOf(bytes) !== `sha256:${expectedSha256}`) return false;
          staged.set(key, bytes);
          return true;
        },
        // A memory folder exists while a file below it does: an empty one is not kept.
        makeFolder: (key) =>
          call(() => {
            checked(key);
          }),
      });
      if (files.has(folder) || isFolder(folder)) return { status: 'exists' };
      const keys = checkPlaceable(folder, components, staged);
      // One synchronous step: a reader sees no folder or the whole folder.
      for (const key of keys) replace(key, staged.get(key) ?? new Uint8Array());
      return { status: 'created', filled };
    },
    // Nothing to keep open: the session is the store, and closing it leaves the store as it is.
    openSession: () => Promise.resolve({ ...store, close: () => Promise.resolve() }),
    openObjects: (options = {}) => {
      const objects = objectsAtKeys(
        read,
        (key, bytes) =>
          call(() => {
            replace(key, bytes);
          }),
        'the memory store',
      );
      return Promise.resolve(options.readOnly === true ? readOnlyObjects(objects) : objects);
    },
    close: () => Promise.resolve(),
  };
  return store;
}

/** Runs `body` as a promise: a throw becomes a rejection, as an I/O failure of the files store is. */
function call<T>(body: () => T | Promise<T>): Promise<T> {
  try {
    return Promise.resolve(body());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function refused(key: string, why: string): StoreError {
  return new StoreError({ code: 'write_refused', key, message: `memory store: cannot write ${key}: ${why}` });
}
