import { projectOf } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { appendLines } from './record-lines.js';

/**
 * What a recorder keeps open for its appends: a session of the project's store (`ProjectStore.openSession`),
 * which keeps the folders of a run's records and of the indexes open, so an append walks one folder level (or
 * none), not the whole `.agent/...` path each time.
 */
export interface RecordRoots {
  /** The project as a recorder writes it: its folder, and the session in place of its store. */
  readonly project: Project;
  /** Appends whole lines to the records or index file `key` through the session. */
  append(key: string, text: string, durability: 'fsync' | 'none'): Promise<void>;
  /** Waits for calls in flight and releases the session (and the files store of a folder path). */
  close(): Promise<void>;
}

/** Opens a session of the project's store; a folder path's files store is closed with it. */
export async function openRecordRoots(project: ProjectRef): Promise<RecordRoots> {
  const opened = projectOf(project);
  const closeOwned = async (): Promise<void> => {
    if (typeof project === 'string') await opened.store.close();
  };
  const session = await opened.store.openSession().catch(async (error: unknown) => {
    await closeOwned();
    throw error;
  });
  return {
    project: { dir: opened.dir, store: session },
    append: (key, text, durability) => appendLines(session, key, text, durability),
    close: async () => {
      try {
        await session.close();
      } finally {
        await closeOwned();
      }
    },
  };
}
