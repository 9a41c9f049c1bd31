import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../src/cli/cli-error.js';
import { mountReadOnly } from '../helpers/read-only-mount.js';
import { tempProject } from '../helpers/temp-project.js';

/** The error a real failed system call throws. */
async function systemErrorOf(action: () => Promise<unknown>): Promise<unknown> {
  try {
    await action();
  } catch (error) {
    return error;
  }
  throw new Error('the system call did not fail');
}

describe('classifyError', () => {
  it('reports a failed system call as io_error with its errno and path, not as an internal error', async () => {
    const dir = await tempProject({});
    const error = await systemErrorOf(() => mkdir(join(dir, 'no/such/parent')));
    expect(await classifyError(error, 'run')).toEqual({
      code: 'io_error',
      message: `ENOENT: no such file or directory, mkdir '${join(dir, 'no/such/parent')}'`,
    });
  });

  it('reports a read-only filesystem as EROFS', async ({ skip }) => {
    const dir = await tempProject({});
    const mount = mountReadOnly(dir);
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      const error = await systemErrorOf(() => mkdir(join(dir, '.agent')));
      expect(await classifyError(error, 'run')).toMatchObject({
        code: 'io_error',
        message: expect.stringMatching(/^EROFS: read-only file system, mkdir /) as string,
      });
    } finally {
      mount.release();
    }
  });

  it('leaves an error without errno and syscall to the internal-error path', async () => {
    expect(await classifyError(new Error('boom'), 'run')).toBeUndefined();
    const coded = Object.assign(new Error('not a system call'), { code: 'ERR_SOMETHING' });
    expect(await classifyError(coded, 'run')).toBeUndefined();
  });
});
