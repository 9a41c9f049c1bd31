import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyRun } from '../../src/artifacts/bundle/index.js';
import { noRemoteMessage } from '../../src/cli/no-remote-error.js';
import { parseRunId, PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import type { RunId } from '../../src/project/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { openProject } from '../../src/store/index.js';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import type { CliResult } from '../helpers/run-cli.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { catalogSettings, freshCatalog, remoteStoreOf } from '../remote/remote-test-stores.js';

// Fleet reads through the CLI (issue 26, storage.md "Fleet reads"): the demo runs in one project folder (the
// machine that ran it) and is pushed into a fresh catalog; a second folder holding only the config file (no
// .agent/, no workspace/) answers every read command with --remote as the first answers it without.

// A password no redaction pattern knows, so only the remote's own wording keeps it out of the output.
const PASSWORD = 'Zq-unseen-catalog-pw';

let root = '';
let ran = '';
let fleet = '';
let runId: RunId;
let settings: RemoteStoreSettings;
let catalogUrl = '';

/** The config of a folder that reads the remote of `remote`. */
function remoteConfig(remote: RemoteStoreSettings): string {
  return `remote:\n  project: ${remote.project}\n  catalog: ${remote.catalog}\n  objects: catalog\n`;
}

async function folder(name: string, config?: string): Promise<string> {
  const dir = path.join(root, name);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  if (config !== undefined) await writeFile(path.join(dir, PROJECT_CONFIG_FILE), config);
  return dir;
}

/** Pushes the demo's run (from the folder that ran it, or `from`) into a namespace of the test catalog. */
async function pushedTo(remote: RemoteStoreSettings, from = ran): Promise<void> {
  const store = remoteStoreOf(remote);
  const local = openProject(from);
  try {
    await copyRun(local, openProject(from, { store }), runId, { direction: 'push' });
  } finally {
    await Promise.all([store.close(), local.store.close()]);
  }
}

/** The same command here (where the run ran) and with --remote from the folder that has only the config. */
async function bothWays(args: readonly string[]): Promise<{ local: CliResult; remote: CliResult }> {
  const local = await runCli(args, { cwd: ran });
  const remote = await runCli([...args, '--remote'], { cwd: fleet });
  expect(local.code, local.stderr).toBe(0);
  expect(remote.code, remote.stderr).toBe(0);
  expect(remote.stderr).toBe(local.stderr);
  return { local, remote };
}

function json(result: CliResult): unknown {
  return JSON.parse(result.stdout) as unknown;
}

describeWithPostgres('fleet reads through the CLI', (postgres) => {
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ai-fleet-reads-'));
    catalogUrl = await freshCatalog(postgres);
    settings = catalogSettings(catalogUrl, 'acme/fleet-reads');
    ran = path.join(root, 'ran');
    const demo = await runCli(['demo', '--dir', ran, '--json'], { cwd: root });
    expect(demo.code, demo.stderr).toBe(0);
    const runs = JSON.parse((await runCli(['runs', '--json'], { cwd: ran })).stdout) as { run_id: string }[];
    expect(runs).toHaveLength(1);
    runId = parseRunId(runs[0]?.run_id ?? '');
    await pushedTo(settings);
    fleet = await folder('fleet', remoteConfig(settings));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('runs --remote --json lists the run with its id and host as the machine that ran it does', async () => {
    const { local, remote } = await bothWays(['runs', '--json']);
    expect(json(remote)).toEqual(json(local));
    const [summary] = json(remote) as { run_id: string; host?: string }[];
    expect(summary?.run_id).toBe(runId);
    expect(Object.hasOwn(summary ?? {}, 'host')).toBe(true);
    // The folder that read them has no .agent/ and no workspace/: nothing was written there.
    expect((await readdir(fleet)).sort()).toEqual([PROJECT_CONFIG_FILE]);
  });

  it('show, replay (both ways) and report --json answer as the machine that ran the run', async () => {
    for (const args of [
      ['show', runId, '--json'],
      ['replay', runId, '--json'],
      ['replay', runId, '--backward', '--json'],
    ]) {
      const { local, remote } = await bothWays(args);
      expect({ args, output: json(remote) }).toEqual({ args, output: json(local) });
    }
    // The text forms too, byte for byte.
    for (const args of [['show', runId], ['replay', runId], ['runs']]) {
      const { local, remote } = await bothWays(args);
      expect({ args, output: remote.stdout }).toEqual({ args, output: local.stdout });
    }
    // The report's verify compares the live workspace only where the run ran (D118): the remote's checks none.
    const { local, remote } = await bothWays(['report', runId, '--json']);
    const { verify: localVerify, ...localReport } = json(local) as { verify: Record<string, unknown> };
    const { verify: remoteVerify, ...remoteReport } = json(remote) as { verify: Record<string, unknown> };
    expect(remoteReport).toEqual(localReport);
    expect(remoteVerify).toEqual({ ...localVerify, workspaceFiles: { checked: 0, ok: 0 } });
    expect((localVerify['workspaceFiles'] as { checked: number }).checked).toBeGreaterThan(0);
  });

  it('log PATH --remote --json lists every version of a path the run wrote', async () => {
    const replay = json(await runCli(['replay', runId, '--json'], { cwd: ran })) as {
      steps: { artifacts: { path: string }[] }[];
    };
    const paths = [...new Set(replay.steps.flatMap((step) => step.artifacts.map((a) => a.path)))];
    expect(paths.length).toBeGreaterThan(2);
    for (const recorded of paths) {
      const { local, remote } = await bothWays(['log', recorded, '--json']);
      expect(local.code).toBe(0);
      expect({ recorded, log: json(remote) }).toEqual({ recorded, log: json(local) });
    }
  });

  it('checkout --remote --run RUN_ID --step N --to DIR rebuilds the files the local checkout does', async () => {
    const steps = (json(await runCli(['replay', runId, '--json'], { cwd: ran })) as { steps: unknown[] })
      .steps.length;
    for (const step of [0, 1, Math.ceil(steps / 2), steps]) {
      const here = path.join(root, `checkout-local-${String(step)}`);
      const there = path.join(root, `checkout-remote-${String(step)}`);
      const args = ['checkout', '--run', runId, '--step', String(step), '--json'];
      const local = await runCli([...args, '--to', here], { cwd: ran });
      const remote = await runCli([...args, '--to', there, '--remote'], { cwd: fleet });
      expect(remote.code, remote.stderr).toBe(0);
      expect(local.code, local.stderr).toBe(0);
      // Normalised: the folder each was asked to fill.
      expect({ ...(json(remote) as object), to: '' }).toEqual({ ...(json(local) as object), to: '' });
      expect((json(remote) as { to: string }).to).toBe(there);
      expect(await treeDigest(there)).toBe(await treeDigest(here));
    }
  });

  it('verify RUN_ID --remote --strict re-hashes the run in the remote and finds it sound', async () => {
    const local = await runCli(['verify', runId, '--strict', '--json'], { cwd: ran });
    const remote = await runCli(['verify', runId, '--strict', '--json', '--remote'], { cwd: fleet });
    expect(remote.code, remote.stdout).toBe(local.code);
    expect(remote.code).toBe(0);
    const localReport = json(local) as { workspaceFiles: { checked: number } };
    expect(localReport.workspaceFiles.checked).toBeGreaterThan(0);
    // Normalised: the workspace files, which only the machine that ran the run has (D118).
    expect(json(remote)).toEqual({ ...localReport, workspaceFiles: { checked: 0, ok: 0 } });
  });

  it('export openlineage --remote prints the events the machine that ran the run prints', async () => {
    const { local, remote } = await bothWays(['export', 'openlineage', runId]);
    expect(local.code).toBe(0);
    expect(remote.stdout.split('\n').length).toBeGreaterThan(4);
    expect(remote.stdout).toBe(local.stdout);
    // --remote before the format is read as the option, not as a format.
    const first = await runCli(['export', '--remote', 'openlineage', runId], { cwd: fleet });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(local.stdout);
  });

  it('export otlp --remote prints the trace the machine that ran the run prints', async () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '' };
    const local = await runCli(['export', 'otlp', runId], { cwd: ran, env });
    const remote = await runCli(['export', 'otlp', runId, '--remote'], { cwd: fleet, env });
    expect(local.code, local.stderr).toBe(0);
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stderr).toBe(local.stderr);
    expect(remote.stdout).toContain('"parentSpanId"');
    expect(remote.stdout).toBe(local.stdout);
  });

  it('report RUN_ID --remote writes the page here, through the built CLI', async () => {
    const page = path.join(root, 'fleet-report.html');
    const remote = await spawnCli(['report', runId, '--remote', '-o', page], { cwd: fleet });
    expect(remote.code, remote.stderr).toBe(0);
    expect(remote.stdout).toContain(`Wrote ${page}`);
    const html = await readFile(page, 'utf8');
    expect(html).toContain(runId);
    expect(html).toMatch(/^<!doctype html>/i);
    const runs = await spawnCli(['runs', '--remote', '--json'], { cwd: fleet });
    expect(runs.code, runs.stderr).toBe(0);
    expect((JSON.parse(runs.stdout) as { run_id: string }[]).map((run) => run.run_id)).toEqual([runId]);
  });

  it('runs --remote shows a run its machine last pushed as running, not interrupted: no lock is pushed', async () => {
    // A copy of the machine whose run was killed mid-way: state.json says running, and no runner holds its lock.
    const killed = await folder('killed');
    await cp(ran, killed, { recursive: true });
    const statePath = path.join(killed, '.agent', 'runs', runId, 'state.json');
    const state = JSON.parse(await readFile(statePath, 'utf8')) as { status: string };
    await writeFile(statePath, JSON.stringify({ ...state, status: 'running' }));
    const running = catalogSettings(catalogUrl, 'acme/running');
    await pushedTo(running, killed);
    const dir = await folder('running', remoteConfig(running));

    const local = json(await runCli(['runs', '--json'], { cwd: killed })) as object[];
    const remote = json(await runCli(['runs', '--remote', '--json'], { cwd: dir })) as object[];
    expect(local).toMatchObject([{ run_id: runId, status: 'running', interrupted: true }]);
    // Normalised: interrupted, which only the machine that ran the run can judge (D118).
    expect(remote).toEqual(local.map((run) => ({ ...run, interrupted: false })));
    const shown = json(await runCli(['show', runId, '--remote', '--json'], { cwd: dir }));
    expect(shown).toMatchObject({ interrupted: false, state: { status: 'running' } });
  });

  it('refuses a corrupt content in the remote: checkout writes no file and verify names the hash', async () => {
    const corrupt = catalogSettings(catalogUrl, 'acme/corrupt');
    await pushedTo(corrupt);
    const dir = await folder('corrupt', remoteConfig(corrupt));
    const files = (
      json(
        await runCli(['checkout', '--run', runId, '--step', '1', '--json', '--to', path.join(root, 'c0')], {
          cwd: ran,
        }),
      ) as { files: { contentHash: string; path: string }[] }
    ).files;
    const victim = files[0];
    if (victim === undefined) throw new Error('step 1 of the demo wrote no file');
    const hash = victim.contentHash.replace(/^sha256:/, '');
    const pool = new pg.Pool({ connectionString: catalogUrl, max: 1 });
    try {
      const changed = await pool.query(
        'UPDATE artifact_ingest_objects SET bytes = $3 WHERE namespace = $1 AND hash = $2',
        [corrupt.project, hash, Buffer.from('not what was recorded\n')],
      );
      expect(changed.rowCount).toBe(1);
    } finally {
      await pool.end();
    }

    const to = path.join(root, 'corrupt-checkout');
    const checkout = await runCli(['checkout', '--remote', '--run', runId, '--step', '1', '--to', to], {
      cwd: dir,
    });
    expect(checkout.code).toBe(1);
    expect(checkout.stderr).toContain(hash);
    expect(await readdir(to).catch(() => [])).toEqual([]);

    const verify = await runCli(['verify', runId, '--remote', '--strict', '--json'], { cwd: dir });
    expect(verify.code).toBe(1);
    const report = json(verify) as { problems: { code: string; message: string }[] };
    expect(report.problems.map((problem) => problem.code)).toContain('corrupt_object');
    expect(report.problems.find((problem) => problem.code === 'corrupt_object')?.message).toContain(hash);
    const text = await runCli(['verify', runId, '--remote'], { cwd: dir });
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(hash);
    expect(text.stdout).toContain(victim.path);
  });

  it('names an unreachable catalog without its password, exit 1', async () => {
    const port = await closedPort();
    const catalog = `postgres://lineage:${PASSWORD}@127.0.0.1:${String(port)}/lineage`;
    const dir = await folder('unreachable');
    const env = {
      ARTIFACT_INGEST_REMOTE_CATALOG: catalog,
      ARTIFACT_INGEST_REMOTE_OBJECTS: 'catalog',
      ARTIFACT_INGEST_REMOTE_PROJECT: 'acme/web',
    };
    for (const args of [
      ['runs', '--remote'],
      ['runs', '--remote', '--json'],
      ['replay', runId, '--remote'],
    ]) {
      const result = await runCli(args, { cwd: dir, env });
      expect({ args, code: result.code }).toEqual({ args, code: 1 });
      expect(result.stderr).toContain(
        `unreachable: the catalog postgres://lineage@127.0.0.1:${String(port)}/lineage could not be reached`,
      );
      expect(result.stderr + result.stdout).not.toContain(PASSWORD);
      if (args.includes('--json')) {
        expect((json(result) as { error: { code: string } }).error.code).toBe('unreachable');
      }
    }
  });

  it('names the catalog and its error when a read is refused mid-command (a role without grants), exit 1', async () => {
    // A role that may read the schema's version and the contents' table, so the remote opens, and nothing else.
    const role = `reader_${String(process.pid)}_${String(Date.now())}`;
    const admin = new pg.Pool({ connectionString: catalogUrl, max: 1 });
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      await admin.query(`GRANT SELECT ON artifact_ingest_schema TO ${role}`);
      const url = new URL(catalogUrl);
      url.username = role;
      const dir = await folder('no-grants', remoteConfig({ ...settings, catalog: url.toString() }));
      // Without the contents' table the open itself is refused: the object store is reached once when it opens.
      const atOpen = await runCli(['runs', '--remote', '--json'], { cwd: dir });
      expect(atOpen.code, atOpen.stderr).toBe(1);
      expect(json(atOpen)).toMatchObject({ error: { code: 'remote_failed' } });
      expect(atOpen.stderr).toContain(
        'refused the work: permission denied for table artifact_ingest_objects',
      );
      expect(atOpen.stderr).toContain("check the role's privileges");
      await admin.query(`GRANT SELECT ON artifact_ingest_objects TO ${role}`);
      const result = await runCli(['runs', '--remote', '--json'], { cwd: dir });
      expect(result.code, result.stderr).toBe(1);
      const { error } = json(result) as { error: { code: string; message: string } };
      expect(error.code).toBe('remote_failed');
      expect(error.message).toMatch(new RegExp(`the catalog postgres(ql)?://${role}@`));
      expect(error.message).toContain("failed during 'runs': permission denied for table artifact_ingest_");
      expect(result.stderr).not.toContain('internal error');
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
      await admin.end();
    }
  });

  it('asks for remote init on a catalog without the schema, exit 2', async () => {
    const empty = catalogSettings(await postgres.createDatabase(), 'acme/web');
    const dir = await folder('no-schema', remoteConfig(empty));
    const result = await runCli(['log', 'src/a.ts', '--remote', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    const { error } = json(result) as { error: { code: string; message: string } };
    expect(error.code).toBe('schema_missing');
    expect(error.message).toContain("run 'artifact-ingest remote init'");
  });

  it.each([
    ['runs', ['runs', '--remote']],
    ['show', ['show', 'r1', '--remote']],
    ['checkout', ['checkout', '--remote', '--step', '1', '--to', 'out']],
    ['export openlineage', ['export', 'openlineage', 'r1', '--remote']],
  ])('%s --remote with no remote configured exits 2 saying how to configure one', async (name, args) => {
    const dir = await folder('unconfigured');
    const result = await runCli(args, { cwd: dir });
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(noRemoteMessage(`${name} --remote`, dir));
    expect(await readdir(dir)).toEqual([]);
    // The same code as push, pull and remote without a remote (one message, docs/remote.md); export has no --json.
    if (name === 'export openlineage') return;
    const asJson = await runCli([...args, '--json'], { cwd: dir });
    expect(asJson.code).toBe(2);
    expect(json(asJson)).toEqual({
      error: { code: 'no_remote', message: noRemoteMessage(`${name} --remote`, dir) },
    });
  });

  it('refuses a run the remote does not have, as a local read refuses an unknown run', async () => {
    const result = await runCli(['replay', 'no-such-run', '--remote', '--json'], { cwd: fleet });
    expect(result.code).toBe(2);
    expect((json(result) as { error: { code: string } }).error.code).toBe('unknown_run');
  });
});

it.each([
  ['ingest', ['ingest', '--remote']],
  ['reindex', ['reindex', '--remote']],
  ['bundle', ['bundle', 'r1', '-o', 'x.tar.gz', '--remote']],
  ['import', ['import', 'x.tar.gz', '--remote']],
  ['run', ['run', 'single', '--remote']],
])('%s --remote is refused naming the commands that read a remote, exit 2', async (command, args) => {
  const result = await runCli(args, { cwd: tmpdir() });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain(
    `artifact-ingest: ${command} does not take --remote; the commands that read a remote are runs, show, log, replay, checkout, verify, report, export openlineage, export otlp`,
  );
});

it('verify --remote without a RUN_ID asks for one, exit 2', async () => {
  const result = await runCli(['verify', '--remote'], { cwd: tmpdir() });
  expect(result.code).toBe(2);
  expect(result.stderr).toContain('verify --remote checks one run: give its RUN_ID');
});

it.each([
  ['runs'],
  ['show'],
  ['log'],
  ['replay'],
  ['checkout'],
  ['verify'],
  ['report'],
  ['export', 'openlineage'],
])('%s --help mentions --remote', async (...command) => {
  const result = await runCli([...command, '--help']);
  expect(result.code).toBe(0);
  expect(result.stdout).toMatch(/^ {2}--remote {2,}\S/m);
});
