import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, MAX_CONFIG_FILE_BYTES } from '../../../src/config/index.js';
import { BUILTIN_WORKFLOW_YAML } from '../../../src/workflow/definition/builtin-workflows.js';
import {
  listWorkflows,
  loadWorkflow,
  parseWorkflow,
} from '../../../src/workflow/definition/load-workflow.js';
import {
  OUTSIDE_MARKERS,
  outsideReferences,
  outsideRefusal,
  outsideWorkflowFixture,
  workflowYaml,
} from '../../helpers/outside-workflow-fixture.js';
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

  it('loads a path under workflows/, relative to cwd or absolute', async () => {
    const projectDir = await tempProject({ 'workflows/team/flow.yaml': definitionText('flow') });
    const fromInside = await loadWorkflow('flow.yaml', {
      projectDir,
      cwd: path.join(projectDir, 'workflows', 'team'),
    });
    expect(fromInside.name).toBe('flow');
    const byAbsolute = await loadWorkflow(path.join(projectDir, 'workflows/team/flow.yaml'), {
      projectDir,
      cwd: '/',
    });
    expect(byAbsolute.source).toBe(path.join(projectDir, 'workflows', 'team', 'flow.yaml'));
  });

  it('loads a file under workflows/ that is a symlink to another file inside the project', async () => {
    const projectDir = await tempProject({ 'shared/flow.yaml': definitionText('flow') });
    await mkdir(path.join(projectDir, 'workflows'));
    await symlink('../shared/flow.yaml', path.join(projectDir, 'workflows', 'flow.yaml'));
    expect((await loadWorkflow('flow', { projectDir, cwd: projectDir })).name).toBe('flow');
    const byPath = await loadWorkflow('workflows/flow.yaml', { projectDir, cwd: projectDir });
    expect(byPath.text).toBe(definitionText('flow'));
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
      'no workflow named "feature_dev" in workflows/ or the built-ins; did you mean "feature-dev"? the workflows are: release, chain_of_thought, feature-dev; or give the path of a YAML file under workflows/',
    );
  });

  it('refuses a missing path under workflows/, naming the workflows it knows', async () => {
    const projectDir = await tempProject();
    const error = await rejection(() => loadWorkflow('workflows/flow.yaml', { projectDir, cwd: projectDir }));
    expect(error.source).toBe(path.join(projectDir, 'workflows', 'flow.yaml'));
    expect(error.message).toBe(
      `no such workflow file ${error.source}; name a workflow (chain_of_thought, feature-dev) or a YAML file under workflows/`,
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
    expect((await listWorkflows(projectDir)).workflows).toEqual([
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
    expect(await listWorkflows(projectDir)).toEqual({
      workflows: [
        expect.objectContaining({ name: 'chain_of_thought' }),
        expect.objectContaining({ name: 'feature-dev' }),
      ],
      broken: [],
    });
  });

  it('lists the good workflows and the built-ins, and each broken file with the error loading it gives (issue 24)', async () => {
    const projectDir = await tempProject({
      'workflows/bad.yaml': 'name: x\nsteps: oops\n',
      'workflows/good.yaml': definitionText('good'),
      'workflows/misnamed.yaml': definitionText('other'),
    });
    const listing = await listWorkflows(projectDir);
    expect(listing.workflows.map((summary) => summary.name)).toEqual([
      'good',
      'chain_of_thought',
      'feature-dev',
    ]);
    const options = { projectDir, cwd: projectDir };
    expect(listing.broken).toEqual([
      {
        name: 'bad',
        file: 'workflows/bad.yaml',
        error: (await rejection(() => loadWorkflow('bad', options))).message,
      },
      {
        name: 'misnamed',
        file: 'workflows/misnamed.yaml',
        error: (await rejection(() => loadWorkflow('misnamed', options))).message,
      },
    ]);
    expect(listing.broken[0]?.error).toContain(`${path.join(projectDir, 'workflows', 'bad.yaml')}:2:`);
  });

  it('does not list a built-in that a broken workflows/<name>.yaml overrides, as loading it would fail', async () => {
    const projectDir = await tempProject({ 'workflows/feature-dev.yaml': 'name: feature-dev\n' });
    const listing = await listWorkflows(projectDir);
    expect(listing.workflows.map((summary) => summary.name)).toEqual(['chain_of_thought']);
    expect(listing.broken.map((entry) => entry.name)).toEqual(['feature-dev']);
  });

  it('quotes no more of a broken file than loading it does: one line, redacted', async () => {
    const secret = 'ghp_ListedSecretListedSecretListedSecret1234';
    const projectDir = await tempProject({
      'workflows/leaky.yaml': `${definitionText('leaky')}    ? |\n      ${secret}\n      second line zq-hidden\n    : v\n`,
    });
    const [entry] = (await listWorkflows(projectDir)).broken;
    expect(entry?.error).toBe(
      (await rejection(() => loadWorkflow('leaky', { projectDir, cwd: projectDir }))).message,
    );
    expect(entry?.error).not.toContain(secret);
    expect(entry?.error).not.toContain('zq-hidden');
  });
});

describe('loadWorkflow: nothing outside the project is read (issue 23)', () => {
  it('refuses every reference outside the project with one text that quotes nothing of any file', async () => {
    const fixture = await outsideWorkflowFixture();
    for (const [what, reference] of outsideReferences(fixture)) {
      const error = await rejection(() =>
        loadWorkflow(reference, { projectDir: fixture.projectDir, cwd: fixture.projectDir }),
      );
      expect(
        error.issues.map((issue) => issue.message),
        what,
      ).toEqual([outsideRefusal(reference)]);
      for (const marker of OUTSIDE_MARKERS) expect(error.message, what).not.toContain(marker);
    }
  });

  it('never shows the environment through /proc/self/environ', async () => {
    const projectDir = await tempProject();
    process.env.ZQ_ENVIRON_MARKER = 'zq-plain-environ-value';
    try {
      const error = await rejection(() =>
        loadWorkflow('/proc/self/environ', { projectDir, cwd: projectDir }),
      );
      expect(error.message).not.toContain('zq-plain-environ-value');
      expect(error.message).not.toContain('ZQ_ENVIRON_MARKER');
      expect(error.issues[0]?.message).toBe(outsideRefusal('/proc/self/environ'));
    } finally {
      delete process.env.ZQ_ENVIRON_MARKER;
    }
  });

  it('refuses a name whose file under workflows/ leads outside instead of falling back to the built-in', async () => {
    const fixture = await outsideWorkflowFixture();
    await symlink(fixture.evilFile, path.join(fixture.projectDir, 'workflows', 'feature-dev.yaml'));
    const error = await rejection(() =>
      loadWorkflow('feature-dev', { projectDir: fixture.projectDir, cwd: fixture.projectDir }),
    );
    expect(error.issues[0]?.message).toBe(outsideRefusal('feature-dev'));
  });

  it('refuses every name when workflows/ itself is a symlink to a folder outside', async () => {
    const fixture = await outsideWorkflowFixture();
    await writeFile(path.join(fixture.outsideDir, 'shared.yaml'), workflowYaml('shared'));
    await rename(path.join(fixture.projectDir, 'workflows'), path.join(fixture.projectDir, 'old-workflows'));
    await symlink(fixture.outsideDir, path.join(fixture.projectDir, 'workflows'));
    const options = { projectDir: fixture.projectDir, cwd: fixture.projectDir };
    for (const reference of ['shared', 'evil', 'secret', 'workflows/evil.yaml', 'workflows/nothing.yaml']) {
      const error = await rejection(() => loadWorkflow(reference, options));
      expect(error.issues[0]?.message, reference).toBe(outsideRefusal(reference));
    }
    // Nothing of the project's own workflows (nor a built-in, which loading refuses too) can be listed.
    const listing = await rejection(() => listWorkflows(fixture.projectDir));
    expect(listing.source).toBe(path.join(fixture.projectDir, 'workflows'));
    expect(listing.issues[0]?.message).toBe(
      'leads outside the project (a symlink); workflows are read only from inside the project: make workflows/ a folder of the project',
    );
    for (const marker of OUTSIDE_MARKERS) expect(listing.message).not.toContain(marker);
  });

  it('still loads a valid workflow by name and by its path under workflows/', async () => {
    const fixture = await outsideWorkflowFixture();
    const options = { projectDir: fixture.projectDir, cwd: fixture.projectDir };
    expect((await loadWorkflow('good', options)).name).toBe('good');
    expect((await loadWorkflow('workflows/good.yaml', options)).name).toBe('good');
    expect((await loadWorkflow('./workflows/../workflows/good.yaml', options)).name).toBe('good');
  });

  it('refuses a FIFO at workflows/x.yaml at once, by name and by path', async () => {
    const projectDir = await tempProject({ 'workflows/.keep': '' });
    execFileSync('mkfifo', [path.join(projectDir, 'workflows', 'x.yaml')]);
    for (const reference of ['x', 'workflows/x.yaml']) {
      const error = await rejection(() => loadWorkflow(reference, { projectDir, cwd: projectDir }));
      expect(error.issues[0]?.message).toBe('is not a regular file; give the path of a YAML file');
    }
  });

  it('lists a FIFO at workflows/x.yaml as broken at once, unread', async () => {
    const projectDir = await tempProject({ 'workflows/.keep': '' });
    execFileSync('mkfifo', [path.join(projectDir, 'workflows', 'x.yaml')]);
    const listing = await listWorkflows(projectDir);
    expect(listing.broken).toEqual([
      {
        name: 'x',
        file: 'workflows/x.yaml',
        error: `invalid configuration (1 problem):\n  ${path.join(projectDir, 'workflows', 'x.yaml')}: is not a regular file; give the path of a YAML file`,
      },
    ]);
    expect(listing.workflows.map((summary) => summary.name)).toEqual(['chain_of_thought', 'feature-dev']);
  });

  it('refuses a workflow file over the size limit', async () => {
    const projectDir = await tempProject({
      'workflows/big.yaml': `${definitionText('big')}#${'x'.repeat(MAX_CONFIG_FILE_BYTES)}\n`,
    });
    const error = await rejection(() => loadWorkflow('big', { projectDir, cwd: projectDir }));
    expect(error.issues[0]?.message).toMatch(/limited to 1048576 bytes/);
  });

  it('lists each entry of workflows/ that leads outside as broken, unread, naming only the entry', async () => {
    const fixture = await outsideWorkflowFixture();
    const listing = await listWorkflows(fixture.projectDir);
    const refusal = (name: string) =>
      `invalid configuration (1 problem):\n  ${path.join(fixture.projectDir, 'workflows', `${name}.yaml`)}: leads outside the project (a symlink); workflows are read only from inside the project: put the file itself under workflows/`;
    expect(listing.broken).toEqual([
      { name: 'dangling', file: 'workflows/dangling.yaml', error: refusal('dangling') },
      { name: 'link', file: 'workflows/link.yaml', error: refusal('link') },
    ]);
    expect(listing.workflows.map((summary) => summary.name)).toEqual([
      'good',
      'chain_of_thought',
      'feature-dev',
    ]);
    for (const marker of OUTSIDE_MARKERS) expect(JSON.stringify(listing)).not.toContain(marker);
  });
});

describe('loadWorkflow: errors quote at most the line they name, redacted', () => {
  const secret = 'ghp_QuotedSecretQuotedSecretQuotedSecret1234';

  it('does not echo a secret used as a key', async () => {
    const projectDir = await tempProject({
      'workflows/keyed.yaml': `${definitionText('keyed')}    ${secret}: 1\n`,
    });
    const error = await rejection(() => loadWorkflow('keyed', { projectDir, cwd: projectDir }));
    expect(error.message).toContain('keyed.yaml:8:5: ');
    expect(error.message).not.toContain(secret);
    expect(error.message).toContain('[REDACTED]');
  });

  it('quotes only the first line of a key that spans several lines', async () => {
    const projectDir = await tempProject({
      'workflows/multi.yaml': `${definitionText('multi')}    ? |\n      first line\n      second line zq-hidden\n    : v\n`,
    });
    const error = await rejection(() => loadWorkflow('multi', { projectDir, cwd: projectDir }));
    expect(error.message).toContain('first line');
    expect(error.message).not.toContain('zq-hidden');
    for (const issue of error.issues) expect(issue.message).not.toMatch(/\n|\\n/);
  });

  it('quotes only the first line of a value that spans several lines', async () => {
    const projectDir = await tempProject({
      'workflows/valued.yaml': definitionText('valued')
        .replace('version: "2"', `version: "2"\ninputs: |\n  first value line\n  ${secret} zq-second\n`)
        .replace('inputs: [goal]\n', ''),
    });
    const error = await rejection(() => loadWorkflow('valued', { projectDir, cwd: projectDir }));
    expect(error.message).toContain('first value line');
    expect(error.message).not.toContain('zq-second');
    expect(error.message).not.toContain(secret);
  });
});
