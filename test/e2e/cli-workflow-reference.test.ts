import { execFileSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  OUTSIDE_MARKERS,
  outsideRefusal,
  outsideWorkflowFixture,
} from '../helpers/outside-workflow-fixture.js';
import { spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

// Generous: the point is "answers instead of waiting forever for a writer", not speed.
const ANSWER_WITHIN_MS = 30_000;

describe('artifact-ingest workflow start (the built CLI in a child process): references outside the project', () => {
  it('shows neither the environment (/proc/self/environ) nor an outside file, and starts nothing', async () => {
    const fixture = await outsideWorkflowFixture();
    const env = { ZQ_CLI_MARKER: 'zq-plain-cli-env', ARTIFACT_INGEST: '' };
    for (const reference of ['/proc/self/environ', fixture.secretFile, '../outside/evil.yaml']) {
      const result = await spawnCli(['workflow', 'start', reference], { cwd: fixture.projectDir, env });
      expect(result.code, reference).toBe(2);
      expect(result.stderr, reference).toBe(
        `artifact-ingest: unknown_workflow: ${outsideRefusal(reference)}\n`,
      );
      for (const marker of [...OUTSIDE_MARKERS, 'ZQ_CLI_MARKER', 'zq-plain-cli-env']) {
        expect(result.stdout + result.stderr, reference).not.toContain(marker);
      }
    }
    await expect(readdir(path.join(fixture.projectDir, '.agent'))).rejects.toThrow(/ENOENT/);
  });

  it('answers at once when workflows/x.yaml is a FIFO', async () => {
    const fixture = await outsideWorkflowFixture();
    execFileSync('mkfifo', [path.join(fixture.projectDir, 'workflows', 'x.yaml')]);
    const result = await Promise.race([
      spawnCli(['workflow', 'start', 'x'], { cwd: fixture.projectDir }),
      new Promise<never>((_, reject) =>
        setTimeout(() => {
          reject(new Error('the CLI did not answer'));
        }, ANSWER_WITHIN_MS).unref(),
      ),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('x.yaml: is not a regular file');
  });
});

describe('artifact-ingest workflow list (the built CLI in a child process): a broken file beside good ones (issue 24)', () => {
  async function brokenProject(): Promise<{ projectDir: string; badFile: string }> {
    const projectDir = await tempProject({
      'workflows/bad.yaml': 'name: x\nsteps: oops\n',
      'workflows/good.yaml': 'name: good\nversion: "1"\nsteps:\n  - id: only\n    instructions: "Do it."\n',
    });
    return { projectDir, badFile: path.join(projectDir, 'workflows', 'bad.yaml') };
  }
  const note =
    'artifact-ingest: warning: workflows/bad.yaml is broken: it cannot be started until it is fixed (its error is in the listing)\n';

  it('lists the good ones, the built-ins and the broken one with its error, and exits 0 with a note', async () => {
    const { projectDir, badFile } = await brokenProject();
    const result = await spawnCli(['workflow', 'list'], { cwd: projectDir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(note);
    for (const name of ['good', 'chain_of_thought', 'feature-dev'])
      expect(result.stdout).toMatch(new RegExp(`^${name}\\s`, 'm'));
    expect(result.stdout).toContain('broken workflow files (fix or remove them; they cannot be started):');
    expect(result.stdout).toMatch(/^bad\s+workflows\/bad\.yaml$/m);
    expect(result.stdout).toContain(`    ${badFile}:2:`);
  });

  it('--json gives the workflows and the broken ones with the error workflow start gives', async () => {
    const { projectDir } = await brokenProject();
    const result = await spawnCli(['workflow', 'list', '--json'], { cwd: projectDir });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(note);
    const listed = JSON.parse(result.stdout) as {
      workflows: { name: string }[];
      broken: { name: string; file: string; error: string }[];
    };
    expect(listed.workflows.map((workflow) => workflow.name)).toEqual([
      'good',
      'chain_of_thought',
      'feature-dev',
    ]);
    expect(listed.broken).toEqual([
      { name: 'bad', file: 'workflows/bad.yaml', error: expect.any(String) as unknown },
    ]);
    const started = await spawnCli(['workflow', 'start', 'bad', '--json'], { cwd: projectDir });
    expect(started.code).toBe(2);
    expect(started.stdout).toContain(JSON.stringify(listed.broken[0]?.error).slice(1, -1));
  });
});
