import { readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import {
  beginStepObservation,
  endStepObservation,
  ObserveError,
  projectSnapshotSchema,
  registerArtefacts,
  snapshotPath,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const RUN = parseRunId('wf-1');
const STEP = { runId: RUN, step: parseNodeId('implement'), pass: 2 };

describe('beginStepObservation / endStepObservation', () => {
  it('stores the start snapshot in the run folder and reconciles against it after a restart', async () => {
    const projectDir = await tempProject({ 'src/a.ts': 'a\n' });
    const started = await beginStepObservation(projectDir, STEP, undefined, { durability: 'none' });
    expect(snapshotPath(RUN, STEP.step, STEP.pass)).toBe('.agent/runs/wf-1/snapshots/implement-2.json');
    const stored = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/wf-1/snapshots/implement-2.json'), 'utf8'),
    ) as unknown;
    expect(projectSnapshotSchema.parse(stored)).toEqual(started);

    // The agent writes two files and registers one; nothing of the first call's memory is used below.
    await writeFile(path.join(projectDir, 'src/b.ts'), 'b\n');
    await writeFile(path.join(projectDir, 'src/c.ts'), 'c\n');
    const registration = await registerArtefacts(
      projectDir,
      { runId: RUN, taskId: STEP.step, agentId: 'coder', paths: ['src/b.ts'], already: [] },
      { durability: 'none' },
    );
    const ended = await endStepObservation(projectDir, STEP, registration.registered);
    // The run folder (.agent) is never observed, so the records and the snapshot file are no changes.
    expect(ended.reconciliation).toEqual({
      unregistered: ['src/c.ts'],
      phantom: [],
      changes: { created: ['src/b.ts', 'src/c.ts'], modified: [], deleted: [] },
    });
    expect(Object.keys(ended.after.files)).toEqual(['src/a.ts', 'src/b.ts', 'src/c.ts']);
  });

  it('names an action step snapshot without a pass', () => {
    expect(snapshotPath(RUN, parseNodeId('scope'))).toBe('.agent/runs/wf-1/snapshots/scope.json');
  });

  it('refuses to end a step whose start was never observed', async () => {
    const projectDir = await tempProject();
    await expect(endStepObservation(projectDir, STEP, [])).rejects.toMatchObject({
      code: 'snapshot_unreadable',
    });
  });

  it('reports a corrupt stored snapshot as snapshot_unreadable', async () => {
    const projectDir = await tempProject({
      '.agent/runs/wf-1/snapshots/implement-2.json': '{"version":2}\n',
    });
    const call = endStepObservation(projectDir, STEP, []);
    await expect(call).rejects.toThrow(ObserveError);
    await expect(call).rejects.toMatchObject({ code: 'snapshot_unreadable' });
  });

  it('refuses to write the snapshot through a symlinked run folder', async () => {
    const projectDir = await tempProject({ '.agent/runs/.keep': '' });
    const elsewhere = await tempProject();
    await symlink(elsewhere, path.join(projectDir, '.agent/runs/wf-1'));
    await expect(
      beginStepObservation(projectDir, STEP, undefined, { durability: 'none' }),
    ).rejects.toMatchObject({
      code: 'snapshot_write_failed',
    });
  });
});
