import { join } from 'node:path';
import { AGENT_DIR } from '../project/index.js';
import { openConfinedRoot } from '../workspace/index.js';
import type { ConfinedRoot } from '../workspace/index.js';
import { confinedStoreCalls, readRefused, writeRefused } from './confined-store-calls.js';
import type { Within } from './confined-store-calls.js';
import { openFilesSession } from './files-session.js';
import { openObjectStore } from './object-store.js';
import type { ProjectStore, StoreEntry } from './project-store.js';
import type { StoreError } from './store-error.js';
import { checkKeyBelow, storeKeyComponents } from './store-key.js';

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
  const within: Within = async (key, _reach, use) => use({ root: await root(), at: '', below: key });
  const calls = confinedStoreCalls(projectDir, within);

  const refused = (key: string, message: string): StoreError => writeRefused(projectDir, key, message);

  const store: ProjectStore = {
    kind: 'files',
    location,
    ...calls,
    list: async (folder) => {
      storeKeyComponents(folder, { folder: true });
      const opening = await (await root()).openFolder(folder);
      if (opening.kind === 'missing') return [];
      if (opening.kind === 'refused') throw readRefused(projectDir, folder, '', opening);
      try {
        return (await opening.folder.list()).map((entry): StoreEntry => ({ ...entry }));
      } finally {
        await opening.folder.close();
      }
    },
    replaceFolder: async (folder, fill) => {
      storeKeyComponents(folder);
      // A staging folder beside `folder`, published file by file (`publish({ mode: 'files' })`, D101).
      const staging = await (await root()).stage(folder);
      if ('status' in staging) throw refused(folder, staging.message);
      try {
        const filled = await fill({
          write: async (key, content) => {
            checkKeyBelow(folder, key);
            const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
            // Durable once, at the publish: a crash before it leaves only the staging folder, which nothing reads.
            const outcome = await staging.files.write(key.slice(folder.length + 1), bytes, {
              durability: 'none',
            });
            if (outcome.status === 'refused') throw refused(key, outcome.message);
          },
        });
        const published = await staging.publish({ mode: 'files' });
        if (published.status !== 'published') {
          throw refused(folder, published.status === 'exists' ? 'it exists' : published.message);
        }
        return filled;
      } finally {
        await staging.discard();
      }
    },
    createFolder: async (folder, fill) => {
      storeKeyComponents(folder);
      // A staging folder beside `folder` (its name starts with '.', so no reader lists it), renamed into place whole.
      const staging = await (await root()).stage(folder);
      if ('status' in staging) throw refused(folder, staging.message);
      const below = (key: string): string => {
        checkKeyBelow(folder, key, 'createFolder');
        return key.slice(folder.length + 1);
      };
      try {
        const filled = await fill({
          write: async (key, content) => {
            const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
            const outcome = await staging.files.write(below(key), bytes);
            if (outcome.status === 'refused') throw refused(key, outcome.message);
          },
          writeStream: async (key, chunks, expectedSha256) => {
            const outcome = await staging.files.writeStream(below(key), chunks, { expectedSha256 });
            if (outcome.status === 'hash_mismatch') return false;
            if (outcome.status === 'refused') throw refused(key, outcome.message);
            return true;
          },
          makeFolder: async (key) => {
            const made = await staging.files.makeDirectory(below(key));
            if (made.status === 'refused') throw refused(key, made.message);
          },
        });
        const published = await staging.publish();
        if (published.status === 'exists') return { status: 'exists' };
        if (published.status === 'refused') throw refused(folder, published.message);
        return { status: 'created', filled };
      } finally {
        await staging.discard();
      }
    },
    openSession: () => Promise.resolve(openFilesSession(projectDir, store, root)),
    openObjects: (options) => openObjectStore(projectDir, options),
    close: async () => {
      const current = opened;
      opened = undefined;
      if (current !== undefined) await (await current.catch(() => undefined))?.close();
    },
  };
  return store;
}
