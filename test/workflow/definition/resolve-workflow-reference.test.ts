import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveWorkflowReference } from '../../../src/workflow/definition/resolve-workflow-reference.js';
import type { WorkflowReference } from '../../../src/workflow/definition/resolve-workflow-reference.js';
import {
  outsideReferences,
  outsideWorkflowFixture,
  workflowYaml,
} from '../../helpers/outside-workflow-fixture.js';

/** The kind a reference resolves to, with the project-relative file when it is one. */
function summary(projectDir: string, found: WorkflowReference): string {
  switch (found.kind) {
    case 'builtin':
      return `builtin ${found.name}`;
    case 'project_file':
      return `file ${path.relative(projectDir, found.file.shownAs)}${found.name === undefined ? '' : ` (name ${found.name})`}`;
    case 'unknown_name':
      return `unknown name ${found.name}`;
    case 'missing_file':
      return `missing ${path.relative(projectDir, found.shownAs)}`;
    case 'not_in_project':
      return 'not in project';
  }
}

describe('resolveWorkflowReference', () => {
  it.each([
    ['good', 'file workflows/good.yaml (name good)'],
    ['feature-dev', 'builtin feature-dev'],
    ['chain_of_thought', 'builtin chain_of_thought'],
    ['nothing-here', 'unknown name nothing-here'],
    ['workflows/good.yaml', 'file workflows/good.yaml'],
    ['./workflows/good.yaml', 'file workflows/good.yaml'],
    ['workflows/team/../good.yaml', 'file workflows/good.yaml'],
    ['workflows/inside.yaml', 'file workflows/inside.yaml'],
    ['workflows/nothing.yaml', 'missing workflows/nothing.yaml'],
    ['workflows/good.yaml/x.yaml', 'missing workflows/good.yaml/x.yaml'],
    ['workflows/fifo.yaml', 'file workflows/fifo.yaml'],
    ['workflows/', 'not in project'],
    ['workflows', 'unknown name workflows'],
    ['workflows/notes.txt', 'not in project'],
    ['artifact-ingest.config.yaml', 'not in project'],
    ['.agent/runs/r/workflow.yaml', 'not in project'],
    ['workflows/x.yaml\0', 'not in project'],
  ])('resolves %j as %s', async (reference, expected) => {
    const fixture = await outsideWorkflowFixture();
    const { projectDir } = fixture;
    await writeFile(path.join(projectDir, 'docs', 'inside.yaml'), workflowYaml('inside'));
    await symlink('../docs/inside.yaml', path.join(projectDir, 'workflows', 'inside.yaml'));
    await mkdir(path.join(projectDir, 'workflows', 'team'));
    execFileSync('mkfifo', [path.join(projectDir, 'workflows', 'fifo.yaml')]);
    const found = await resolveWorkflowReference(reference, { projectDir, cwd: projectDir });
    expect(summary(projectDir, found)).toBe(expected);
  });

  it('resolves every reference that leads outside the project to not_in_project, existing or not', async () => {
    const fixture = await outsideWorkflowFixture();
    for (const [what, reference] of outsideReferences(fixture)) {
      const found = await resolveWorkflowReference(reference, {
        projectDir: fixture.projectDir,
        cwd: fixture.projectDir,
      });
      expect(found, what).toEqual({ kind: 'not_in_project' });
    }
  });

  it('takes a relative path from cwd and an absolute one through the project spelt by a symlink', async () => {
    const fixture = await outsideWorkflowFixture();
    const spelt = path.join(fixture.outsideDir, 'project-link');
    await symlink(fixture.projectDir, spelt);
    const options = { projectDir: spelt, cwd: path.join(fixture.projectDir, 'docs') };
    const relative = await resolveWorkflowReference('../workflows/good.yaml', options);
    const absolute = await resolveWorkflowReference(path.join(spelt, 'workflows', 'good.yaml'), options);
    const real = await resolveWorkflowReference(
      path.join(fixture.projectDir, 'workflows', 'good.yaml'),
      options,
    );
    for (const found of [relative, absolute, real]) {
      expect(found.kind === 'project_file' && found.file.realPath).toBe(
        path.join(fixture.projectDir, 'workflows', 'good.yaml'),
      );
    }
  });
});
