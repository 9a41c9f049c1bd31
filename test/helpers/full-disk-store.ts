import type { ProjectStore } from '../../src/store/index.js';

/**
 * `store` as on a full disk: its appenders open as before, and every write fails with ENOSPC as write(2) does
 * there, so what an event log does with a failed write can be seen on any machine.
 */
export function fullDiskStore(store: ProjectStore): ProjectStore {
  return {
    ...store,
    openAppender: async (key) => {
      const appender = await store.openAppender(key);
      return {
        write: () => {
          throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
            code: 'ENOSPC',
            syscall: 'write',
            errno: -28,
          });
        },
        sync: () => appender.sync(),
        close: () => appender.close(),
      };
    },
  };
}
