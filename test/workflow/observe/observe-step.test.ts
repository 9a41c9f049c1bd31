import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import {
  beginStepObservation,
  endStepObservation,
  ObserveError,
  projectSnapshotSchema,
  registerArtefacts,
  snapshotKey,
  snapshotPath,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const RUN = parseRunId('wf-1');
const TOKENS = ['a1B2c3D4e5', 'Z9y8X7w6V5', 'q1W2e3R4t5'].map((seed) => `ghp_${seed.repeat(4).slice(0, 36)}`);
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

  it('never stores a secret-shaped file name verbatim and still tells unchanged, modified and created apart', async () => {
    const [kept = '', edited = '', created = ''] = TOKENS;
    const projectDir = await tempProject({
      [`notes/${kept}.md`]: 'kept\n',
      [`keys/${edited}/a.txt`]: 'before\n',
      'src/app.ts': 'app\n',
    });
    await beginStepObservation(projectDir, STEP, undefined, { durability: 'none' });
    await writeFile(path.join(projectDir, `keys/${edited}/a.txt`), 'after, longer\n');
    await mkdir(path.join(projectDir, 'new'));
    await writeFile(path.join(projectDir, `new/${created}.md`), 'created\n');
    await writeFile(path.join(projectDir, 'src/b.ts'), 'b\n');
    const ended = await endStepObservation(projectDir, STEP, ['src/b.ts']);
    expect(ended.reconciliation.changes).toEqual({
      created: [snapshotKey(`new/${created}.md`), 'src/b.ts'].sort(),
      modified: [snapshotKey(`keys/${edited}/a.txt`)],
      deleted: [],
    });
    expect(ended.reconciliation.unregistered).toEqual(
      [snapshotKey(`keys/${edited}/a.txt`), snapshotKey(`new/${created}.md`)].sort(),
    );
    expect(ended.reconciliation.phantom).toEqual([]);
    const snapshots = path.join(projectDir, '.agent/runs/wf-1/snapshots');
    const stored = await Promise.all(
      (await readdir(snapshots)).map((name) => readFile(path.join(snapshots, name), 'utf8')),
    );
    expect(stored.length).toBeGreaterThan(0);
    for (const text of [...stored, JSON.stringify(ended)]) {
      for (const token of TOKENS) expect(text).not.toContain(token);
    }
  });
});
