import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import {
  beginStepObservation,
  endStepObservation,
  readProjectSnapshot,
  snapshotProject,
  writeProjectSnapshot,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const STORED = '.agent/runs/wf-1/snapshots/scope.json';

describe('writeProjectSnapshot / readProjectSnapshot', () => {
  it('round-trips a snapshot through the run folder', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n' });
    const snapshot = await snapshotProject(projectDir);
    await writeProjectSnapshot(projectDir, STORED, snapshot, { durability: 'none' });
    expect(await readProjectSnapshot(projectDir, STORED)).toEqual(snapshot);
  });

  it('returns undefined when no snapshot was stored', async () => {
    expect(await readProjectSnapshot(await tempProject(), STORED)).toBeUndefined();
  });

  it.each([
    ['not JSON', '{', 'is not JSON'],
    ['a wrong shape', '{"version":1,"taken_at":"x","files":{}}', 'is not a project snapshot'],
  ])('reports %s as snapshot_unreadable', async (_name, text, message) => {
    const projectDir = await tempProject({ [STORED]: text });
    await expect(readProjectSnapshot(projectDir, STORED)).rejects.toMatchObject({
      code: 'snapshot_unreadable',
      message: expect.stringContaining(message) as unknown,
    });
  });

  it('keeps the snapshots of a project on a memory store in the store, none under .agent/', async () => {
    const project = openProject(await tempProject({ 'src/a.ts': 'a\n' }), { store: createMemoryStore() });
    const step = { runId: parseRunId('wf-1'), step: parseNodeId('implement'), pass: 1 };
    const before = await beginStepObservation(project, step);
    expect(await readProjectSnapshot(project, '.agent/runs/wf-1/snapshots/implement-1.json')).toEqual(before);
    await writeFile(path.join(project.dir, 'src/b.ts'), 'b\n');
    const ended = await endStepObservation(project, step, []);
    expect(ended.reconciliation.unregistered).toEqual(['src/b.ts']);
    expect(await readdir(project.dir)).toEqual(['src']);
  });

  it('refuses to read or write a snapshot through a symlinked run folder', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject({ 'snapshots/scope.json': 'planted' });
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(projectDir, '.agent/runs/wf-1'));
    await expect(readProjectSnapshot(projectDir, STORED)).rejects.toMatchObject({
      code: 'snapshot_unreadable',
    });
    const snapshot = await snapshotProject(projectDir);
    await expect(writeProjectSnapshot(projectDir, STORED, snapshot)).rejects.toMatchObject({
      code: 'snapshot_write_failed',
    });
    expect(await readdir(path.join(outside, 'snapshots'))).toEqual(['scope.json']);
  });
});
