import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathsToRegister, reconcile, snapshotProject } from '../../../src/workflow/index.js';
import type { ProjectSnapshot } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const entry = (sha: string): ProjectSnapshot['files'][string] => ({
  size: 1,
  mtime_ms: 1,
  sha256: sha.repeat(64),
});
const snapshot = (files: Record<string, string>): ProjectSnapshot => ({
  version: 1,
  taken_at: '2026-01-01T00:00:00.000Z',
  files: Object.fromEntries(Object.entries(files).map(([file, sha]) => [file, entry(sha)])),
});

describe('reconcile', () => {
  it('reports an agent that wrote files without registering them as unregistered', async () => {
    const projectDir = await tempProject({ 'README.md': 'hi\n', 'src/old.ts': 'old\n' });
    const before = await snapshotProject(projectDir);
    await writeFile(path.join(projectDir, 'src/new.ts'), 'new\n');
    await writeFile(path.join(projectDir, 'src/old.ts'), 'old, edited\n');
    await writeFile(path.join(projectDir, 'scope.md'), 'scope\n');
    const after = await snapshotProject(projectDir, before);
    const result = reconcile(before, after, ['scope.md']);
    expect(result).toEqual({
      unregistered: ['src/new.ts', 'src/old.ts'],
      phantom: [],
      changes: { created: ['scope.md', 'src/new.ts'], modified: ['src/old.ts'], deleted: [] },
    });
  });

  it('reports a registered file the agent never wrote, or that no longer exists, as phantom', async () => {
    const projectDir = await tempProject({ 'untouched.md': 'same\n', 'doomed.md': 'bye\n' });
    const before = await snapshotProject(projectDir);
    await rm(path.join(projectDir, 'doomed.md'));
    const after = await snapshotProject(projectDir, before);
    const result = reconcile(before, after, ['untouched.md', 'doomed.md', 'never-existed.md']);
    expect(result.phantom).toEqual(['doomed.md', 'never-existed.md', 'untouched.md']);
    expect(result.unregistered).toEqual([]);
    expect(result.changes.deleted).toEqual(['doomed.md']);
  });

  it('reports an unregistered deletion, which pathsToRegister leaves out because it cannot be registered', async () => {
    const projectDir = await tempProject({ 'gone.ts': 'x\n', 'kept.ts': 'k\n' });
    const before = await snapshotProject(projectDir);
    await rm(path.join(projectDir, 'gone.ts'));
    await writeFile(path.join(projectDir, 'made.ts'), 'm\n');
    const result = reconcile(before, await snapshotProject(projectDir, before), []);
    expect(result.unregistered).toEqual(['gone.ts', 'made.ts']);
    expect(pathsToRegister(result)).toEqual(['made.ts']);
  });

  it('does not count a touch that keeps the bytes, or gitignored writes, as changes', async () => {
    const projectDir = await tempProject({ '.gitignore': 'tmp/\n', 'a.txt': 'a\n' });
    const before = await snapshotProject(projectDir);
    await writeFile(path.join(projectDir, 'a.txt'), 'a\n');
    await tempWrite(projectDir, 'tmp/cache.bin', 'junk');
    const result = reconcile(before, await snapshotProject(projectDir, before), []);
    expect(result).toEqual({
      unregistered: [],
      phantom: [],
      changes: { created: [], modified: [], deleted: [] },
    });
  });

  it('orders every list by code unit whatever the input order', () => {
    const before = snapshot({ b: 'a', a: 'a', Z: 'a' });
    const after = snapshot({ c: 'b', B: 'b', b: 'b', a: 'b' });
    const result = reconcile(before, after, ['x', 'a', 'Y']);
    expect(result.changes).toEqual({ created: ['B', 'c'], modified: ['a', 'b'], deleted: ['Z'] });
    expect(result.unregistered).toEqual(['B', 'Z', 'b', 'c']);
    expect(result.phantom).toEqual(['Y', 'x']);
  });
});

async function tempWrite(projectDir: string, relative: string, text: string): Promise<void> {
  const { mkdir } = await import('node:fs/promises');
  await mkdir(path.dirname(path.join(projectDir, relative)), { recursive: true });
  await writeFile(path.join(projectDir, relative), text);
}
