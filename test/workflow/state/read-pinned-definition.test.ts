import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createWorkflowState,
  readPinnedDefinition,
  workflowDefinitionPath,
} from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { DEFINITION, newState } from './fixtures/state-fixtures.js';

describe('readPinnedDefinition', () => {
  it('reads back the definition pinned at the start, even after the project copy changed', async () => {
    const projectDir = await tempProject({ 'workflows/feature-dev.yaml': DEFINITION.text });
    const state = await createWorkflowState(projectDir, newState('wf-1'));
    await writeFile(path.join(projectDir, 'workflows/feature-dev.yaml'), 'name: feature-dev\nsteps: []\n');
    expect(await readPinnedDefinition(projectDir, state)).toEqual(DEFINITION);
  });

  it.each([
    [
      'was edited',
      (file: string) => writeFile(file, `${DEFINITION.text}# edited\n`),
      /no longer has the hash pinned in run wf-1 \(it was edited\)/,
    ],
    [
      'is gone',
      (file: string) => rm(file),
      /cannot read the pinned definition \.agent\/runs\/wf-1\/workflow\.yaml of run wf-1: /,
    ],
  ])('refuses a pinned copy that %s, naming it', async (_, spoil, message) => {
    const projectDir = await tempProject();
    const state = await createWorkflowState(projectDir, newState('wf-1'));
    await spoil(path.join(projectDir, workflowDefinitionPath(state.run_id)));
    const error = await readPinnedDefinition(projectDir, state).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'definition_mismatch' });
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).toContain('.agent/runs/wf-1/workflow.yaml');
  });

  it.each([
    ['a symlink to an outside file with the very text pinned', 'symlink'],
    ['a symlink to /dev/zero', 'zero'],
    ['a FIFO', 'fifo'],
  ])('refuses %s at the pinned copy without following or reading it', async (_, kind) => {
    const projectDir = await tempProject();
    const state = await createWorkflowState(projectDir, newState('wf-1'));
    const pinned = path.join(projectDir, workflowDefinitionPath(state.run_id));
    await rm(pinned);
    if (kind === 'symlink') {
      const outside = await mkdtemp(path.join(tmpdir(), 'pinned-outside-'));
      await writeFile(path.join(outside, 'w.yaml'), DEFINITION.text);
      await symlink(path.join(outside, 'w.yaml'), pinned);
    } else if (kind === 'zero') {
      await symlink('/dev/zero', pinned);
    } else {
      const { execFileSync } = await import('node:child_process');
      execFileSync('mkfifo', [pinned]);
    }
    const error = await readPinnedDefinition(projectDir, state).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'definition_mismatch' });
    expect((error as Error).message).toMatch(
      /cannot read the pinned definition \.agent\/runs\/wf-1\/workflow\.yaml/,
    );
  });

  it('refuses a pinned copy over the definition size limit without reading it whole', async () => {
    const projectDir = await tempProject();
    const state = await createWorkflowState(projectDir, newState('wf-1'));
    await writeFile(path.join(projectDir, workflowDefinitionPath(state.run_id)), 'x'.repeat(2 * 1024 * 1024));
    const error = await readPinnedDefinition(projectDir, state).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'definition_mismatch' });
    expect((error as Error).message).toMatch(/limited to 1048576 bytes/);
  });
});
