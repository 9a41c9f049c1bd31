import { appendFile, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyRun, RunCopyError } from '../../../src/artifacts/bundle/index.js';
import { logPath, replayRun, verifyArtifacts } from '../../../src/artifacts/lineage/index.js';
import { parseRunId } from '../../../src/project/index.js';
import type { RunId } from '../../../src/project/index.js';
import { readRunReport } from '../../../src/report/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project, ProjectStore } from '../../../src/store/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { tempProject } from '../../helpers/temp-project.js';
import { usePostgres } from '../../helpers/use-postgres.js';
import { catalogSettings, freshCatalog, remoteStoreOf } from '../../remote/remote-test-stores.js';

// copyRun is push and pull (spec storage.md Part 2): one copy between two stores. A real run (the demo's team graph,
// with ingest on) is copied into another store; the lineage read there must answer as it does where the run ran.

let local: Project;
let runId: RunId;
let demoDir: string;
const opened: ProjectStore[] = [];

beforeAll(async () => {
  // Kept for the whole file (tempProject's folders go after each test).
  const dir = await mkdtemp(path.join(tmpdir(), 'ai-copy-run-'));
  demoDir = dir;
  const demo = await runCli(['demo', '--dir', 'demo', '--json'], { cwd: dir });
  expect(demo.code).toBe(0);
  const projectDir = path.join(dir, 'demo');
  local = openProject(projectDir);
  const runs = await readdir(path.join(projectDir, '.agent/runs'));
  runId = parseRunId(runs[0] ?? '');
});

afterAll(async () => {
  await local.store.close();
  await rm(demoDir, { recursive: true, force: true });
});

const postgres = usePostgres();
if (postgres.kind === 'skip') process.stderr.write(`${postgres.note}\n`);
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  if (postgres.kind === 'run') await postgres.dropDatabases();
});
const TARGETS: readonly (readonly [string, () => Promise<ProjectStore>])[] = [
  ['memory', () => Promise.resolve(createMemoryStore())],
  ...(postgres.kind === 'fail'
    ? [['postgres', () => Promise.reject(new Error(postgres.reason))] as const]
    : postgres.kind === 'skip'
      ? []
      : [
          [
            'postgres + catalog objects',
            async () => {
              const store = remoteStoreOf(catalogSettings(await freshCatalog(postgres.postgres)));
              opened.push(store);
              return store;
            },
          ] as const,
        ]),
];

describe.each(TARGETS)('copying a run into a %s store', (_kind, open) => {
  it('gives the same replay, log, verify and report there, and copies nothing twice', async () => {
    const target = openProject(local.dir, { store: await open() });
    const first = await copyRun(local, target, runId, { direction: 'push' });
    expect(first.recordsCopied).toBeGreaterThan(10);
    expect(first.objectsStored).toBeGreaterThan(10);

    const here = await replayRun(local, runId);
    const there = await replayRun(target, runId);
    expect(there).toEqual(here);
    const somePath = here.steps
      .flatMap((step) => step.artifacts)
      .find((artifact) => artifact.type === 'file')?.path;
    expect(somePath).toBeDefined();
    expect(await logPath(target, somePath ?? '')).toEqual(await logPath(local, somePath ?? ''));
    const verified = await verifyArtifacts(target, { runId });
    expect(verified.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    // A remote's verify checks records and contents, not the reading machine's workspace: compare the rest.
    const { verify: targetVerify, ...targetReport } = await readRunReport(target, runId);
    const { verify: localVerify, ...localReport } = await readRunReport(local, runId);
    expect(targetReport).toEqual(localReport);
    expect(targetVerify?.objects).toEqual(localVerify?.objects);

    const again = await copyRun(local, target, runId, { direction: 'push' });
    expect(again).toMatchObject({ filesWritten: 0, bytesWritten: 0, objectsStored: 0, recordsCopied: 0 });
    expect(await logPath(target, somePath ?? '')).toEqual(await logPath(local, somePath ?? ''));
  });

  it('pulls the run back into a project that never had it, file for file', async () => {
    const remote = openProject(local.dir, { store: await open() });
    await copyRun(local, remote, runId, { direction: 'push' });
    const elsewhere = openProject(await tempProject());
    try {
      await copyRun(remote, elsewhere, runId, { direction: 'pull' });
      for (const file of [
        'state.json',
        'events.jsonl',
        'artifacts.jsonl',
        'terminal.json',
        'manifests/plan.json',
      ]) {
        expect(await readFile(path.join(elsewhere.dir, '.agent/runs', runId, file), 'utf8')).toBe(
          await readFile(path.join(local.dir, '.agent/runs', runId, file), 'utf8'),
        );
      }
      expect(await replayRun(elsewhere, runId)).toEqual(await replayRun(local, runId));
    } finally {
      await elsewhere.store.close();
    }
  });

  it('copies only the new lines of a run that grew, and refuses a different run under the same id', async () => {
    const source = openProject(await tempProject(), { store: createMemoryStore() });
    await copyRun(local, source, runId, { direction: 'push' });
    const target = openProject(local.dir, { store: await open() });
    await copyRun(source, target, runId, { direction: 'push' });
    const events = `.agent/runs/${runId}/events.jsonl`;
    await source.store.append(events, '{"level":"INFO","event":"later"}\n');
    const grown = await copyRun(source, target, runId, { direction: 'push' });
    expect(grown).toMatchObject({ filesWritten: 1, bytesWritten: 33, recordsCopied: 0 });
    expect(await target.store.readText(events)).toBe(await source.store.readText(events));

    const other = openProject(await tempProject(), { store: createMemoryStore() });
    await copyRun(local, other, runId, { direction: 'push' });
    const text = (await other.store.readText(events)) ?? '';
    await other.store.replace(events, text.replace('"INFO"', '"WARN"'));
    await expect(copyRun(other, target, runId, { direction: 'push' })).rejects.toMatchObject({
      code: 'run_diverged',
    });
    await expect(copyRun(other, target, parseRunId('nope'), { direction: 'push' })).rejects.toBeInstanceOf(
      RunCopyError,
    );
  });

  it('stops before any record when an object it needs is corrupt in the source', async () => {
    const source = openProject(await tempProject(), { store: createMemoryStore() });
    await copyRun(local, source, runId, { direction: 'push' });
    const objects = (await source.store.list('.agent/objects/sha256'))[0];
    const [file] = await source.store.list(`.agent/objects/sha256/${objects?.name ?? ''}`);
    await source.store.replace(
      `.agent/objects/sha256/${objects?.name ?? ''}/${file?.name ?? ''}`,
      'tampered\n',
    );
    const target = openProject(local.dir, { store: await open() });
    await expect(copyRun(source, target, runId, { direction: 'pull' })).rejects.toMatchObject({
      code: 'corrupt_object',
    });
    expect(await target.store.read(`.agent/runs/${runId}/artifacts.jsonl`)).toBeUndefined();
  });
});

describe('pulling from a hostile remote', () => {
  it('refuses a record whose path escapes the project, writing none of the run', async () => {
    const remote = openProject(await tempProject(), { store: createMemoryStore() });
    await copyRun(local, remote, runId, { direction: 'push' });
    const key = `.agent/runs/${runId}/artifacts.jsonl`;
    const lines = ((await remote.store.readText(key)) ?? '').trimEnd().split('\n');
    const file = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((r) => r['type'] === 'file');
    await remote.store.append(key, `${JSON.stringify({ ...file, path: 'workspace/../../outside.ts' })}\n`);
    const target = openProject(await tempProject());
    try {
      await expect(copyRun(remote, target, runId, { direction: 'pull' })).rejects.toMatchObject({
        code: 'invalid_records',
      });
      expect(await target.store.list('.agent/runs')).toEqual([]);
    } finally {
      await target.store.close();
    }
  });
});

describe('refusing a source run whose records or files are not all its own', () => {
  const RECORDS = (id: RunId) => `.agent/runs/${id}/artifacts.jsonl`;
  it.each([
    {
      name: 'an unreadable records line',
      spoil: async (source: Project) => {
        const text = (await source.store.readText(RECORDS(runId))) ?? '';
        await source.store.replace(RECORDS(runId), `not json\n${text}`);
      },
      message: () => `line 1 of ${RECORDS(runId)} is not JSON; the run cannot be copied until it is fixed`,
    },
    {
      name: 'a record of another run',
      spoil: async (source: Project) => {
        const text = (await source.store.readText(RECORDS(runId))) ?? '';
        await source.store.replace(RECORDS(runId), text.replace(`"runId":"${runId}"`, '"runId":"run-other"'));
      },
      message: () =>
        new RegExp(
          `^${RECORDS(runId)} holds record \\S+ of run run-other, not ${runId}; nothing of the run was copied$`,
        ),
    },
    {
      name: 'a symlink in the run folder',
      spoil: async (source: Project) => {
        await symlink('/etc/passwd', path.join(source.dir, '.agent/runs', runId, 'manifests', 'secret.json'));
      },
      message: () =>
        new RegExp(
          `^\\.agent/runs/${runId}/manifests/secret\\.json in .+ is neither a file nor a folder \\(a symlink or a device\\); remove it, then copy the run again$`,
        ),
    },
  ])('refuses $name as invalid_records, writing none of the run', async ({ spoil, message }) => {
    const source = openProject(await tempProject());
    const target = openProject(await tempProject(), { store: createMemoryStore() });
    try {
      await copyRun(local, source, runId, { direction: 'pull' });
      await spoil(source);
      const refused = copyRun(source, target, runId, { direction: 'push' });
      await expect(refused).rejects.toBeInstanceOf(RunCopyError);
      await expect(refused).rejects.toMatchObject({ code: 'invalid_records', runId });
      await expect(refused).rejects.toThrow(message());
      expect(await target.store.list('.agent/runs')).toEqual([]);
    } finally {
      await source.store.close();
    }
  });
});

describe('copying out of a project whose run is still being written', () => {
  it('leaves a cut last line for the next copy', async () => {
    const dir = await tempProject();
    const project = openProject(dir);
    const memory = openProject(dir, { store: createMemoryStore() });
    try {
      await copyRun(local, project, runId, { direction: 'pull' });
      const events = path.join(dir, '.agent/runs', runId, 'events.jsonl');
      const before = await readFile(events, 'utf8');
      await appendFile(events, '{"level":"INFO","ev');
      await copyRun(project, memory, runId, { direction: 'push' });
      expect(await memory.store.readText(`.agent/runs/${runId}/events.jsonl`)).toBe(before);
    } finally {
      await project.store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
