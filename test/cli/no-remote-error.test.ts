import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/cli/cli-error.js';
import { exitCodeFor } from '../../src/cli/exit-codes.js';
import { NoRemoteError, noRemoteMessage } from '../../src/cli/no-remote-error.js';
import { REMOTE_CATALOG_ENV, REMOTE_OBJECTS_ENV, REMOTE_PROJECT_ENV } from '../../src/config/index.js';
import { PROJECT_CONFIG_FILE } from '../../src/project/index.js';

describe('no remote configured: one message, one code', () => {
  it.each([['push'], ['pull'], ['remote status'], ['runs --remote'], ['export openlineage --remote']])(
    '%s names itself, the folder, the remote: keys, the three variables and docs/remote.md',
    (command) => {
      const message = noRemoteMessage(command, '/work/acme');
      expect(message).toBe(
        `${command} needs a remote, and /work/acme has none configured: add a remote: section (project, catalog, ` +
          `objects) to its ${PROJECT_CONFIG_FILE}, or set ${REMOTE_CATALOG_ENV}, ${REMOTE_OBJECTS_ENV} and ` +
          `${REMOTE_PROJECT_ENV}; see docs/remote.md`,
      );
    },
  );

  it('is no_remote, exit 2, reported with its message and no usage hint', async () => {
    const error = new NoRemoteError('runs --remote', '/work/acme');
    expect(await classifyError(error, 'runs')).toEqual({
      code: 'no_remote',
      message: noRemoteMessage('runs --remote', '/work/acme'),
    });
    expect(exitCodeFor(error.code)).toBe(2);
  });
});
