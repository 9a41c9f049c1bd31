import { createHash } from 'node:crypto';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/config/index.js';
import { BUILTIN_WORKFLOW_YAML } from '../../../src/workflow/definition/builtin-workflows.js';
import {
  listWorkflows,
  loadWorkflow,
  parseWorkflow,
} from '../../../src/workflow/definition/load-workflow.js';
import { tempProject } from '../../helpers/temp-project.js';

/** The ConfigError `action` rejects with (the test fails if it resolves). */
async function rejection(action: () => Promise<unknown>): Promise<ConfigError> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

function definitionText(name: string, extra = ''): string {
  return `name: ${name}\nversion: "2"\ndescription: Mine\ninputs: [goal]\nsteps:\n  - id: only\n    instructions: "Do {goal}"\n${extra}`;
}

describe('loadWorkflow', () => {
  it('finds workflows/<name>.yaml in the project before a built-in of the same name', async () => {
    const projectDir = await tempProject({ 'workflows/feature-dev.yaml': definitionText('feature-dev') });
    const definition = await loadWorkflow('feature-dev', { projectDir, cwd: projectDir });
    expect(definition).toMatchObject({
      name: 'feature-dev',
      version: '2',
      source: path.join(projectDir, 'workflows', 'feature-dev.yaml'),
    });
  });

  it('falls back to the built-ins', async () => {
    const projectDir = await tempProject();
    const definition = await loadWorkflow('chain_of_thought', { projectDir, cwd: projectDir });
    expect(definition.source).toBe('builtin:chain_of_thought');
    expect(definition.text).toBe(BUILTIN_WORKFLOW_YAML.chain_of_thought);
  });

  it('loads a path relative to cwd', async () => {
    const projectDir = await tempProject({ 'elsewhere/flow.yaml': definitionText('flow') });
    const definition = await loadWorkflow('flow.yaml', {
      projectDir,
      cwd: path.join(projectDir, 'elsewhere'),
    });
    expect(definition.name).toBe('flow');
  });

  it('pins the sha256 of the text and keeps the text', async () => {
    const text = definitionText('pinned');
    const projectDir = await tempProject({ 'workflows/pinned.yaml': text });
    const definition = await loadWorkflow('pinned', { projectDir, cwd: projectDir });
    expect(definition.hash).toBe(createHash('sha256').update(text).digest('hex'));
    expect(definition.text).toBe(text);
  });

  it('refuses an unknown name with did-you-mean over the project and built-in names', async () => {
    const projectDir = await tempProject({ 'workflows/release.yaml': definitionText('release') });
    const error = await rejection(() => loadWorkflow('feature_dev', { projectDir, cwd: projectDir }));
    expect(error.issues[0]?.message).toBe(
      'no workflow named "feature_dev" in workflows/ or the built-ins; did you mean "feature-dev"? the workflows are: release, chain_of_thought, feature-dev; or give a YAML file\'s path',
    );
  });

  it('refuses a missing path, naming the workflows it knows', async () => {
    const projectDir = await tempProject();
    const error = await rejection(() => loadWorkflow('nope/flow.yaml', { projectDir, cwd: projectDir }));
    expect(error.source).toBe(path.join(projectDir, 'nope', 'flow.yaml'));
    expect(error.issues[0]?.message).toBe(
      "no such workflow file; give a YAML file's path or a workflow name: chain_of_thought, feature-dev",
    );
  });

  it('refuses a project file whose name: differs from its file name', async () => {
    const projectDir = await tempProject({ 'workflows/alpha.yaml': definitionText('beta') });
    const error = await rejection(() => loadWorkflow('alpha', { projectDir, cwd: projectDir }));
    expect(error.issues[0]).toMatchObject({
      path: 'name',
      message:
        'the workflow is named "beta" but its file is alpha.yaml; rename the file to beta.yaml or write name: alpha',
    });
  });

  it('reports a broken project file with its path, line and column', async () => {
    const projectDir = await tempProject({
      'workflows/broken.yaml': definitionText('broken', '    sav_as: x\n'),
    });
    const error = await rejection(() => loadWorkflow('broken', { projectDir, cwd: projectDir }));
    expect(error.message).toContain(
      `${path.join(projectDir, 'workflows', 'broken.yaml')}:8:5: steps[0].sav_as: unknown key "sav_as"; did you mean "save_as"?`,
    );
  });
});

describe('parseWorkflow', () => {
  it('parses the same text once, whatever file it came from', () => {
    const text = `${definitionText('cached')}# cache case\n`;
    const first = parseWorkflow(text, 'a.yaml');
    const second = parseWorkflow(text, 'b.yaml');
    expect(second.steps).toBe(first.steps);
    expect([first.source, second.source]).toEqual(['a.yaml', 'b.yaml']);
  });

  it('returns a frozen definition', () => {
    const definition = parseWorkflow(definitionText('frozen'), 'f.yaml');
    expect(Object.isFrozen(definition)).toBe(true);
    expect(Object.isFrozen(definition.steps[0])).toBe(true);
  });
});

describe('listWorkflows', () => {
  it("lists the project's workflows, then the built-ins it does not override", async () => {
    const projectDir = await tempProject({
      'workflows/release.yaml': definitionText('release'),
      'workflows/feature-dev.yaml': definitionText('feature-dev'),
      'workflows/notes.txt': 'not a workflow',
    });
    expect(await listWorkflows(projectDir)).toEqual([
      { name: 'feature-dev', version: '2', description: 'Mine', steps: 1, inputs: ['goal'] },
      { name: 'release', version: '2', description: 'Mine', steps: 1, inputs: ['goal'] },
      {
        name: 'chain_of_thought',
        version: '1.0',
        description: 'Multi-step reasoning with full model capacity',
        steps: 3,
        inputs: ['problem'],
      },
    ]);
  });

  it('lists the built-ins in a project without workflows/', async () => {
    const projectDir = await tempProject();
    expect((await listWorkflows(projectDir)).map((summary) => summary.name)).toEqual([
      'chain_of_thought',
      'feature-dev',
    ]);
  });

  it('throws the ConfigError of a broken project definition', async () => {
    const projectDir = await tempProject({ 'workflows/bad.yaml': 'name: bad\n' });
    const error = await rejection(() => listWorkflows(projectDir));
    expect(error.source).toBe(path.join(projectDir, 'workflows', 'bad.yaml'));
  });
});
