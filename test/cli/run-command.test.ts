import { cp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

const replies = fileURLToPath(new URL('../../fixtures/demo/replies/', import.meta.url));
const config =
  'agents:\n  planner: { kind: replay, dir: replies }\n  builder: { kind: replay, dir: replies }\n  auditor: { kind: replay, dir: replies }\n  writer: { kind: replay, dir: replies }\n';

/** A team run that failed at the audit node, started with the given ingest flags; the audit reply is then fixed. */
async function failedRun(flags: readonly string[]): Promise<string> {
  const dir = await tempProject({ 'artifact-ingest.config.yaml': config });
  await cp(replies, path.join(dir, 'replies'), { recursive: true });
  await rm(path.join(dir, 'replies/audit.md'));
  const failed = await runCli(['run', 'team', '--input', 'goal=x', '--run-id', 'r1', ...flags], { cwd: dir });
  expect(failed.code).toBe(1);
  await writeFile(path.join(dir, 'replies/audit.md'), '# Audit\n\nNothing to report.\n');
  return dir;
}

describe('run --resume and the ingest setting', () => {
  it.each([
    [
      'keeps on from the run, whatever the environment says',
      ['--ingest'],
      [],
      { ARTIFACT_INGEST: '0' },
      'on (kept from the run)',
    ],
    ['keeps off from the run', ['--no-ingest'], [], { ARTIFACT_INGEST: '1' }, 'off (kept from the run)'],
    ['takes --no-ingest over the run', ['--ingest'], ['--no-ingest'], {}, 'off (--no-ingest)'],
    ['takes --ingest over the run', [], ['--ingest'], {}, 'on (--ingest)'],
  ])('%s', async (_name, startFlags, resumeFlags, env, expected) => {
    const dir = await failedRun(startFlags);
    const resumed = await runCli(['run', '--resume', 'r1', ...resumeFlags], { cwd: dir, env });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain(`ingest: ${expected}\n`);
  });
});
