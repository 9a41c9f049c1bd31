import { execFileSync } from 'node:child_process';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/index.js';
import { readProjectWorkflow } from '../../../src/workflow/definition/read-project-workflow.js';
import { resolveWorkflowReference } from '../../../src/workflow/definition/resolve-workflow-reference.js';
import type { ProjectWorkflowFile } from '../../../src/workflow/definition/resolve-workflow-reference.js';
import { outsideWorkflowFixture, workflowYaml } from '../../helpers/outside-workflow-fixture.js';

/** Resolves `reference` in the project, expecting a file under workflows/. */
async function projectFile(projectDir: string, reference: string): Promise<ProjectWorkflowFile> {
  const found = await resolveWorkflowReference(reference, { projectDir, cwd: projectDir });
  if (found.kind !== 'project_file') throw new Error(`expected a project file, got ${found.kind}`);
  return found.file;
}

describe('readProjectWorkflow', () => {
  it('reads the file the resolver found', async () => {
    const { projectDir } = await outsideWorkflowFixture();
    expect(await readProjectWorkflow(await projectFile(projectDir, 'good'))).toBe(workflowYaml('good'));
  });

  it('reads nothing when a folder on the way is swapped for a symlink to outside after resolving', async () => {
    const fixture = await outsideWorkflowFixture();
    const team = path.join(fixture.projectDir, 'workflows', 'team');
    await mkdir(team);
    await writeFile(path.join(team, 'evil.yaml'), workflowYaml('evil', 'inside'));
    const file = await projectFile(fixture.projectDir, 'workflows/team/evil.yaml');
    await rename(team, `${team}-old`);
    await symlink(fixture.outsideDir, team);
    expect(await readProjectWorkflow(file)).toBeUndefined();
  });

  it('reads nothing when the file is swapped for a symlink to outside after resolving', async () => {
    const fixture = await outsideWorkflowFixture();
    const file = await projectFile(fixture.projectDir, 'good');
    await rm(path.join(fixture.projectDir, 'workflows', 'good.yaml'));
    await symlink(fixture.evilFile, path.join(fixture.projectDir, 'workflows', 'good.yaml'));
    expect(await readProjectWorkflow(file)).toBeUndefined();
  });

  it('refuses at once a FIFO swapped in after resolving, naming the file', async () => {
    const fixture = await outsideWorkflowFixture();
    const file = await projectFile(fixture.projectDir, 'good');
    const at = path.join(fixture.projectDir, 'workflows', 'good.yaml');
    await rm(at);
    execFileSync('mkfifo', [at]);
    const error = await readProjectWorkflow(file).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).source).toBe(at);
    expect((error as ConfigError).issues[0]?.message).toBe(
      'is not a regular file; give the path of a YAML file',
    );
  });

  it('reads nothing when the file was removed after resolving', async () => {
    const { projectDir } = await outsideWorkflowFixture();
    const file = await projectFile(projectDir, 'good');
    await rm(path.join(projectDir, 'workflows', 'good.yaml'));
    expect(await readProjectWorkflow(file)).toBeUndefined();
  });
});
