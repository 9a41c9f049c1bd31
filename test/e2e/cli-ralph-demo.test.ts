import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';

// The built-in ralph graph end to end through the CLI, with the replay agent on fixtures/ralph/<scenario>
// and a real smoke test (node --test on the files the builder wrote): seed 004's loop, both endings.

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ralph-demo-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

interface Terminal {
  readonly state: string;
  readonly artifact: string | null;
  readonly reason: string;
}

async function onlyRun(project: string): Promise<string> {
  const [runId, ...others] = await readdir(path.join(project, '.agent', 'runs'));
  expect(others).toEqual([]);
  if (runId === undefined) throw new Error('no run');
  return runId;
}

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await readFile(file, 'utf8')) as T;
}

describe('artifact-ingest demo ralph', () => {
  it('ends done: the malformed development result is fixed on the re-ask, the smoke test passes, audit is clean', async () => {
    const project = path.join(root, 'done');
    const result = await runCli(['demo', 'ralph', '--dir', project], { env: { ARTIFACT_INGEST: '' } });
    expect(result.code, result.stderr).toBe(0);
    const runId = await onlyRun(project);
    expect(result.stdout).toContain('terminal: done: every contract satisfied');
    expect(result.stdout).toContain(`read:     .agent/artifacts/${runId}/development_result.json`);

    const terminal = await readJson<Terminal>(path.join(project, '.agent', 'runs', runId, 'terminal.json'));
    expect(terminal).toMatchObject({
      state: 'done',
      artifact: `.agent/artifacts/${runId}/development_result.json`,
    });
    expect((await readdir(path.join(project, '.agent', 'artifacts', runId))).sort()).toEqual([
      'commit_message.json',
      'development_result.json',
      'fix_result.json',
      'issues.json',
      'planning_analysis_decision.json',
      'product_spec.json',
      'smoke_test_result.json',
    ]);
    // The reviewer reads the fixed result: the re-ask's values, not the refused "created".
    const development = await readJson<{ changed_files: { change: string }[] }>(
      path.join(project, '.agent', 'artifacts', runId, 'development_result.json'),
    );
    expect(development.changed_files.map((file) => file.change)).toEqual(['added', 'added']);
    const state = await readJson<{
      nodes: Record<string, { attempts: number; contract?: { state: string } }>;
    }>(path.join(project, '.agent', 'runs', runId, 'state.json'));
    expect(state.nodes['develop']).toMatchObject({ attempts: 2, contract: { state: 'done' } });
    const smoke = await readJson<{ passed: number; failed: number }>(
      path.join(project, '.agent', 'artifacts', runId, 'smoke_test_result.json'),
    );
    expect(smoke).toMatchObject({ passed: 1, failed: 0 });
    // The fix was ingested: the smoke test ran on the trimmed version.
    expect(await readFile(path.join(project, 'workspace', 'src', 'slugify.mjs'), 'utf8')).toContain(
      "replace(/^-+|-+$/g, '')",
    );
    // No contract block became a file.
    expect(await readdir(path.join(project, 'workspace'))).toEqual(['src', 'test']);

    const audit = await runCli(['audit', runId, '--strict', '--project', project]);
    expect(audit.code, audit.stdout + audit.stderr).toBe(0);
    expect(audit.stdout).toContain('7 file(s), 7 submit record(s); no findings');
  });

  it('ends blocked on a blocker issue, exit 1, with the issues artifact to read', async () => {
    const project = path.join(root, 'blocked');
    const result = await runCli(['demo', 'ralph', '--scenario', 'blocked', '--dir', project], {
      env: { ARTIFACT_INGEST: '' },
    });
    expect(result.code, result.stderr).toBe(1);
    const runId = await onlyRun(project);
    const terminal = await readJson<Terminal>(path.join(project, '.agent', 'runs', runId, 'terminal.json'));
    expect(terminal).toMatchObject({ state: 'blocked', artifact: `.agent/artifacts/${runId}/issues.json` });
    expect(terminal.reason).toContain('B1: Non-ASCII titles are mangled');
    const runs = await runCli(['runs', '--json', '--project', project]);
    expect(runs.stdout).toContain('"blocked"');
    const show = await runCli(['show', runId, '--project', project]);
    expect(show.stdout).toContain('terminal: blocked');
    expect(show.stdout).toMatch(/^fix +skipped/m);
  });

  it.each([
    [['demo', 'ralph', '--scenario', 'maybe'], '--scenario must be done or blocked'],
    [['demo', 'team', '--scenario', 'blocked'], '--scenario is for the ralph demo'],
    [['demo', 'ralf'], 'demo has no graph "ralf"; write team or ralph'],
    [['demo', 'ralph', 'team'], 'demo takes one graph name'],
  ])('refuses %j with a usage error', async (args, message) => {
    const result = await runCli([...args, '--dir', path.join(root, 'refused')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});
