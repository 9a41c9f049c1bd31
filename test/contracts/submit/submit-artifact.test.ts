import { spawn, spawnSync } from 'node:child_process';
import { access, lstat, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openObjectStore, readArtifactRecords } from '../../../src/artifacts/index.js';
import { submitArtifact } from '../../../src/contracts/index.js';
import type { SubmitOutcome } from '../../../src/contracts/index.js';
import { parseRunId, sha256Hex } from '../../../src/project/index.js';
import { DEVELOPMENT_RESULT, commitMessage, contractProject } from '../../helpers/contract-project.js';
import { readEvents } from '../../helpers/temp-project.js';
import type { SubmitChildConfig } from '../fixtures/submit-child.js';

const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHILD = path.join(REPO_ROOT, 'test', 'contracts', 'fixtures', 'submit-child.ts');

const outside: string[] = [];
afterEach(async () => {
  await Promise.all(outside.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A folder outside every project, removed after the test. */
async function outsideDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'ai-outside-'));
  outside.push(dir);
  return dir;
}

function submit(projectDir: string, type: string, payload: unknown, runId = 'run-1'): Promise<SubmitOutcome> {
  return submitArtifact({
    projectDir,
    runId,
    taskId: 'dev',
    agentId: 'claude',
    type,
    payload,
    durability: 'none',
  });
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

async function records(projectDir: string, runId = 'run-1') {
  return (await readArtifactRecords(projectDir, parseRunId(runId))).records;
}

/** Asserts a refused submission left no artifact file, no event and no record in the run. */
async function expectNothingWritten(projectDir: string, runId = 'run-1'): Promise<void> {
  expect(await exists(path.join(projectDir, '.agent', 'artifacts', runId))).toBe(false);
  expect(await exists(path.join(projectDir, '.agent', 'runs', runId, 'events.jsonl'))).toBe(false);
  expect(await exists(path.join(projectDir, '.agent', 'runs', runId, 'artifacts.jsonl'))).toBe(false);
}

describe('submitArtifact: an accepted payload', () => {
  it('writes .agent/artifacts/<run>/<type>.json as pretty JSON with a final newline', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'development_result', DEVELOPMENT_RESULT);
    expect(outcome).toMatchObject({
      ok: true,
      type: 'development_result',
      path: '.agent/artifacts/run-1/development_result.json',
      taskId: 'dev',
    });
    const text = await readFile(
      path.join(projectDir, '.agent/artifacts/run-1/development_result.json'),
      'utf8',
    );
    expect(text).toBe(`${JSON.stringify(DEVELOPMENT_RESULT, null, 2)}\n`);
    if (!outcome.ok) throw new Error('refused');
    expect(outcome.contentHash).toBe(`sha256:${sha256Hex(text)}`);
    expect(outcome.bytes).toBe(Buffer.byteLength(text));
  });

  it('appends one artifact.submitted event with the type, path, hash, task, agent and size', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'development_result', DEVELOPMENT_RESULT);
    if (!outcome.ok) throw new Error(outcome.message);
    const submitted = (await readEvents(projectDir, 'run-1')).filter((e) => e.event === 'artifact.submitted');
    expect(submitted).toHaveLength(1);
    expect(submitted[0]).toMatchObject({
      level: 'INFO',
      run_id: 'run-1',
      type: 'development_result',
      path: outcome.path,
      hash: outcome.contentHash,
      task: 'dev',
      agent: 'claude',
      size: outcome.bytes,
    });
  });

  it('appends one record with source submit and metadata.contract, its object in the store', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'development_result', DEVELOPMENT_RESULT);
    if (!outcome.ok) throw new Error(outcome.message);
    const recorded = await records(projectDir);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({
      artifactId: outcome.artifactId,
      runId: 'run-1',
      taskId: 'dev',
      agentId: 'claude',
      type: 'file',
      path: outcome.path,
      contentHash: outcome.contentHash,
      metadata: { source: 'submit', contract: 'development_result', bytes: outcome.bytes },
    });
    expect(recorded[0]?.metadata.previous).toBeUndefined();
    const store = await openObjectStore(projectDir);
    try {
      const stored = new TextDecoder().decode(await store.get(outcome.contentHash));
      expect(JSON.parse(stored)).toEqual(DEVELOPMENT_RESULT);
    } finally {
      await store.close();
    }
  });

  it('links a resubmission to the previous submission of the type and replaces the file', async () => {
    const projectDir = await contractProject();
    const first = await submit(projectDir, 'commit_message', commitMessage('add submit'));
    const second = await submit(projectDir, 'commit_message', commitMessage('add submit and audit'));
    if (!first.ok || !second.ok) throw new Error('refused');
    expect(first.previous).toBeUndefined();
    expect(second.previous).toBe(first.artifactId);
    const recorded = await records(projectDir);
    expect(recorded.map((r) => r.metadata.previous)).toEqual([undefined, first.artifactId]);
    const text = await readFile(path.join(projectDir, second.path), 'utf8');
    expect(JSON.parse(text)).toEqual(commitMessage('add submit and audit'));
  });

  it('keeps the submissions of two runs apart', async () => {
    const projectDir = await contractProject(['run-1', 'run-2']);
    await submit(projectDir, 'commit_message', commitMessage('in run one'), 'run-1');
    const other = await submit(projectDir, 'commit_message', commitMessage('in run two'), 'run-2');
    if (!other.ok) throw new Error(other.message);
    expect(other.previous).toBeUndefined();
    expect(other.path).toBe('.agent/artifacts/run-2/commit_message.json');
    expect(await records(projectDir, 'run-1')).toHaveLength(1);
  });
});

describe('submitArtifact: refusals', () => {
  it('writes nothing for an invalid payload and returns every field error', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'development_result', {
      outcome: 'done',
      changed_files: [{ path: 'src/a.ts', change: 'changed' }],
      checks_run: [],
      reviewer_focus: [],
      sumary: 'typo',
    });
    if (outcome.ok) throw new Error('accepted');
    expect(outcome.code).toBe('invalid_artifact');
    expect(outcome.errors.map((e) => e.path).sort()).toEqual(
      ['changed_files[0].change', 'outcome', 'summary', 'sumary'].sort(),
    );
    expect(outcome.message).toContain('changed_files[0].change: expected one of');
    await expectNothingWritten(projectDir);
  });

  it('refuses an unknown type with the list of types, writing nothing', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'dev_result', DEVELOPMENT_RESULT);
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_artifact' });
    await expectNothingWritten(projectDir);
  });

  it('refuses a run that does not exist (unknown_run), writing nothing', async () => {
    const projectDir = await contractProject();
    const outcome = await submit(projectDir, 'commit_message', commitMessage('x'), 'run-9');
    expect(outcome).toMatchObject({ ok: false, code: 'unknown_run', errors: [] });
    if (outcome.ok) throw new Error('accepted');
    expect(outcome.message).toContain('run-9');
    expect(await exists(path.join(projectDir, '.agent', 'artifacts'))).toBe(false);
    expect(await exists(path.join(projectDir, '.agent', 'runs', 'run-9'))).toBe(false);
  });

  it('throws InvalidIdError for a run id that cannot be an id (misuse, not input)', async () => {
    const projectDir = await contractProject();
    await expect(submit(projectDir, 'commit_message', commitMessage('x'), '../run-1')).rejects.toThrow(
      /run id/,
    );
  });
});

describe('submitArtifact: planted symlinks are refused, nothing is written through them', () => {
  const cases = [
    {
      name: 'a symlink at .agent/artifacts/<run> pointing outside the project',
      plant: async (projectDir: string, target: string) => {
        await mkdir(path.join(projectDir, '.agent', 'artifacts'), { recursive: true });
        await symlink(target, path.join(projectDir, '.agent', 'artifacts', 'run-1'));
      },
    },
    {
      name: 'a symlink at .agent/artifacts itself pointing outside the project',
      plant: async (projectDir: string, target: string) => {
        await mkdir(path.join(target, 'run-1'));
        await symlink(target, path.join(projectDir, '.agent', 'artifacts'));
      },
    },
  ];
  for (const { name, plant } of cases) {
    it(`refuses ${name} (write_refused)`, async () => {
      const projectDir = await contractProject();
      const target = await outsideDir();
      await plant(projectDir, target);
      const outcome = await submit(projectDir, 'commit_message', commitMessage('through a link'));
      expect(outcome).toMatchObject({ ok: false, code: 'write_refused' });
      expect(await readdir(target, { recursive: true })).not.toContain('commit_message.json');
      expect(await readdir(target, { recursive: true })).not.toContain(
        path.join('run-1', 'commit_message.json'),
      );
      expect(await exists(path.join(projectDir, '.agent', 'runs', 'run-1', 'events.jsonl'))).toBe(false);
      expect(await records(projectDir)).toEqual([]);
    });
  }

  it('refuses a run folder that is a symlink (to a real run elsewhere), writing nothing through it', async () => {
    const projectDir = await contractProject(['run-2']);
    const elsewhere = await outsideDir();
    await mkdir(path.join(elsewhere, 'run-1'));
    await symlink(path.join(elsewhere, 'run-1'), path.join(projectDir, '.agent', 'runs', 'run-1'));
    const outcome = await submit(projectDir, 'commit_message', commitMessage('through a run link'));
    expect(outcome).toMatchObject({ ok: false, code: 'write_refused' });
    if (outcome.ok) return;
    expect(outcome.message).toContain('.agent/runs/run-1 is a symlink');
    expect(await readdir(path.join(elsewhere, 'run-1'))).toEqual([]);
    expect(await exists(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).toBe(false);
  });

  it('refuses a run folder that is a plain file', async () => {
    const projectDir = await contractProject(['run-2']);
    await writeFile(path.join(projectDir, '.agent', 'runs', 'run-1'), 'not a folder\n');
    const outcome = await submit(projectDir, 'commit_message', commitMessage('into a file'));
    expect(outcome).toMatchObject({ ok: false, code: 'write_refused' });
    expect(await exists(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).toBe(false);
  });

  it("refuses a symlink at .agent/artifacts/<run> pointing to another run's folder", async () => {
    const projectDir = await contractProject(['run-1', 'run-2']);
    const first = await submit(projectDir, 'commit_message', commitMessage('run two owns this'), 'run-2');
    if (!first.ok) throw new Error(first.message);
    const before = await readFile(path.join(projectDir, first.path), 'utf8');
    await symlink('run-2', path.join(projectDir, '.agent', 'artifacts', 'run-1'));
    const outcome = await submit(projectDir, 'commit_message', commitMessage('written through the link'));
    expect(outcome).toMatchObject({ ok: false, code: 'write_refused' });
    expect(await readFile(path.join(projectDir, first.path), 'utf8')).toBe(before);
    expect(await readdir(path.join(projectDir, '.agent', 'artifacts', 'run-2'))).toEqual([
      'commit_message.json',
    ]);
    expect(await records(projectDir, 'run-1')).toEqual([]);
    expect((await lstat(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).isSymbolicLink()).toBe(true);
  });
});

describe('submitArtifact: concurrent submissions', () => {
  it('keeps both versions of a double submission from two processes and leaves one file', async () => {
    const projectDir = await contractProject();
    const signals = await outsideDir();
    const goFile = path.join(signals, 'go');
    const payloads = [commitMessage('first of two'), commitMessage('second of two')];
    const children = payloads.map((payload, index) => {
      const config: SubmitChildConfig = {
        projectDir,
        runId: 'run-1',
        taskId: 'commit',
        type: 'commit_message',
        payload,
        readyFile: path.join(signals, `ready-${String(index)}`),
        goFile,
      };
      const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(config)], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        child.on('error', reject);
        child.on('close', (code) => {
          resolve({ code, stdout, stderr });
        });
      });
    });
    // Both children are loaded before either submits, so the two submissions really race.
    const deadline = Date.now() + 30_000;
    while (!(await exists(path.join(signals, 'ready-0'))) || !(await exists(path.join(signals, 'ready-1')))) {
      if (Date.now() > deadline) throw new Error('the submit children did not start');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await writeFile(goFile, 'go');
    const results = await Promise.all(children);
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const outcomes = results.map((result) => JSON.parse(result.stdout) as SubmitOutcome);
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);

    const recorded = await records(projectDir);
    expect(recorded).toHaveLength(2);
    const [older, newer] = recorded;
    expect(older?.metadata.previous).toBeUndefined();
    expect(newer?.metadata.previous).toBe(older?.artifactId);
    const store = await openObjectStore(projectDir);
    try {
      const stored = await Promise.all(
        recorded.map(
          async (r) => JSON.parse(new TextDecoder().decode(await store.get(r.contentHash))) as unknown,
        ),
      );
      expect(stored).toEqual(expect.arrayContaining(payloads));
      expect(stored).toHaveLength(2);
    } finally {
      await store.close();
    }
    // One file, holding the version the chain ends with; no temp file and no lock is left behind.
    expect(await readdir(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).toEqual([
      'commit_message.json',
    ]);
    const file = await readFile(path.join(projectDir, '.agent/artifacts/run-1/commit_message.json'));
    expect(`sha256:${sha256Hex(file)}`).toBe(newer?.contentHash);
    expect(await readdir(path.join(projectDir, '.agent', 'runs', 'run-1'))).not.toContain('submit.lock');
    const submitted = (await readEvents(projectDir, 'run-1')).filter((e) => e.event === 'artifact.submitted');
    expect(submitted.map((e) => e.hash)).toEqual(recorded.map((r) => r.contentHash));
  });

  it('takes over a submit.lock left by a process that is gone', async () => {
    const projectDir = await contractProject();
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const lockFile = path.join(projectDir, '.agent', 'runs', 'run-1', 'submit.lock');
    const owner = { pid: dead, hostname: hostname(), acquired_at: new Date().toISOString(), token: 'dead' };
    await writeFile(lockFile, `${JSON.stringify(owner)}\n`);
    const outcome = await submitArtifact({
      projectDir,
      runId: 'run-1',
      taskId: 'dev',
      agentId: 'claude',
      type: 'commit_message',
      payload: commitMessage('after a crash'),
      durability: 'none',
      lockWaitMs: 500,
    });
    expect(outcome).toMatchObject({ ok: true });
    expect(await exists(lockFile)).toBe(false);
  });

  it('answers busy when a live holder keeps submit.lock for the whole wait', async () => {
    const projectDir = await contractProject();
    const lockFile = path.join(projectDir, '.agent', 'runs', 'run-1', 'submit.lock');
    // A live process of this host other than this one (a lock of this process under a token it does not hold is a
    // release that did not land, taken over).
    const owner = {
      pid: process.ppid,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      token: 'live',
    };
    await writeFile(lockFile, `${JSON.stringify(owner)}\n`);
    const outcome = await submitArtifact({
      projectDir,
      runId: 'run-1',
      taskId: 'dev',
      agentId: 'claude',
      type: 'commit_message',
      payload: commitMessage('while busy'),
      durability: 'none',
      lockWaitMs: 50,
    });
    expect(outcome).toMatchObject({ ok: false, code: 'busy' });
    if (outcome.ok) throw new Error('accepted');
    expect(outcome.message).toContain(`pid ${String(process.ppid)}`);
    expect(await exists(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).toBe(false);
    expect(await readFile(lockFile, 'utf8')).toBe(`${JSON.stringify(owner)}\n`);
  });
});
