import { spawnSync } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexFileOf } from '../../src/artifacts/store/artifact-index.js';
import { recordRun } from '../helpers/recorded-run.js';
import { spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

/** Replaces a project file by a FIFO (mkfifo(1)): reading it the plain way waits for a writer forever. */
async function plantFifo(project: string, relative: string): Promise<void> {
  await rm(join(project, relative), { force: true });
  expect(spawnSync('mkfifo', [join(project, relative)]).status).toBe(0);
}

describe('a FIFO planted in place of a project file', () => {
  it('makes verify and log fail at once, naming the file, instead of hanging', async () => {
    const project = await tempProject();
    await recordRun(project, 'run-001');
    const index = indexFileOf('workspace/src/api.ts');
    await plantFifo(project, index);
    for (const args of [
      ['verify', '--project', project],
      ['log', 'workspace/src/api.ts', '--project', project],
    ]) {
      const result = await spawnCli(args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toContain(index.split('/').at(-1));
      expect(result.stderr).toContain('a FIFO, socket or device is in its place');
    }
  }, 30_000);

  it("makes show fail at once when it is the run's state.json", async () => {
    const project = await tempProject();
    await recordRun(project, 'run-001');
    await plantFifo(project, '.agent/runs/run-001/state.json');
    const result = await spawnCli(['show', 'run-001', '--project', project]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('state.json');
  }, 30_000);
});
