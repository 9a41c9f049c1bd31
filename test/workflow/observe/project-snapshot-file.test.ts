import { describe, expect, it } from 'vitest';
import { readProjectSnapshot, snapshotProject, writeProjectSnapshot } from '../../../src/workflow/index.js';
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
});
