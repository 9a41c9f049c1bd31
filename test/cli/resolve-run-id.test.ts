import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveRunId } from '../../src/cli/resolve-run-id.js';
import { InvalidIdError, UnknownRunError } from '../../src/project/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

const MESSAGE = `artifact-ingest: no run "run-404" in .agent/runs/; list the runs with 'artifact-ingest runs'\n`;

describe('an unknown run id', () => {
  it.each([
    ['show', ['show', 'run-404']],
    ['replay', ['replay', 'run-404']],
    ['verify', ['verify', 'run-404']],
    ['bundle', ['bundle', 'run-404', '-o', 'out.tar.gz']],
    ['checkout --run', ['checkout', '--step', '1', '--run', 'run-404', '--to', 'out']],
    ['run --resume', ['run', '--resume', 'run-404']],
  ])('%s exits 2 with the one message and writes nothing', async (_name, args) => {
    const dir = await tempProject({ '.agent/runs/run-1/state.json': '{}' });
    const result = await runCli(args, { cwd: dir });
    expect(result).toEqual({ code: 2, stdout: '', stderr: MESSAGE });
    const json = await runCli([...args, '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({
      error: { code: 'unknown_run', message: MESSAGE.slice('artifact-ingest: '.length, -1) },
    });
  });
});

describe('resolveRunId', () => {
  it('returns the branded id of a run folder that exists', async () => {
    const dir = await tempProject();
    await mkdir(path.join(dir, '.agent/runs/run-1'), { recursive: true });
    expect(await resolveRunId(dir, 'run-1')).toBe('run-1');
  });

  it('throws UnknownRunError for a missing run and InvalidIdError for a bad id, naming the flag', async () => {
    const dir = await tempProject({ '.agent/runs/file': 'not a folder' });
    await expect(resolveRunId(dir, 'file')).rejects.toBeInstanceOf(UnknownRunError);
    await expect(resolveRunId(dir, '../x', '--resume')).rejects.toThrow(InvalidIdError);
    await expect(resolveRunId(dir, '../x', '--resume')).rejects.toThrow(/^--resume "\.\.\/x" must match/);
  });
});
