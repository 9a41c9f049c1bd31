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
