import { describe, expect, it } from 'vitest';
import {
  WorkspaceError,
  withWorkspaceError,
  workspaceErrorFrom,
} from '../../src/workspace/workspace-error.js';

describe('WorkspaceError', () => {
  it('carries code, path, syscall and cause from a Node system error', () => {
    const cause = Object.assign(new Error('boom'), {
      code: 'ENOSPC',
      syscall: 'write',
      path: '/proc/self/fd/9/x',
    });
    const error = workspaceErrorFrom(cause, 'write', '/work/ws/x');
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error).toMatchObject({
      name: 'WorkspaceError',
      code: 'ENOSPC',
      syscall: 'write',
      path: '/work/ws/x',
      cause,
    });
    expect(error.message).toBe('write failed for /work/ws/x (ENOSPC)');
  });

  it('uses EUNKNOWN when the cause has no errno code', () => {
    expect(workspaceErrorFrom(new Error('odd'), 'open', 'x').code).toBe('EUNKNOWN');
  });

  it('wraps a failing call and passes a result through', async () => {
    await expect(withWorkspaceError('open', 'p', () => Promise.resolve(7))).resolves.toBe(7);
    const failing = () => Promise.reject(Object.assign(new Error('gone'), { code: 'ENOENT' }));
    await expect(withWorkspaceError('open', 'p', failing)).rejects.toMatchObject({
      code: 'ENOENT',
      path: 'p',
    });
  });
});
