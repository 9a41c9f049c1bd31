import { spawn } from 'node:child_process';
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { replayRun } from '../../src/artifacts/lineage/index.js';
import { noRemoteMessage } from '../../src/cli/no-remote-error.js';
import { listPending, markPending } from '../../src/fleet/index.js';
import { parseRunId } from '../../src/project/index.js';
import { CATALOG_SCHEMA_VERSION } from '../../src/remote/index.js';
import { listRecordedRuns, openProject } from '../../src/store/index.js';
import type { ProjectStore } from '../../src/store/index.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { CLI, runCli, spawnCli } from '../helpers/run-cli.js';
import type { CliResult } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { catalogSettings, freshCatalog, remoteStoreOf } from '../remote/remote-test-stores.js';

// The fleet commands through the CLI (spec storage.md Part 2): push, pull, remote init and remote status, and `run`
// pushing in the background, against the run's real PostgreSQL (objects in the catalog).

// A password no redaction pattern knows: only the commands' own care keeps it out of their output. The test server
// trusts every local login, so a URL carrying it still connects.
const PASSWORD = 'Zq-unseen-pw-7731';

const opened: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

let template = '';
let templateRun = '';
beforeAll(async () => {
  const root = await mkdtemp(path.join(tmpdir(), 'ai-fleet-template-'));
  template = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', template, '--json']);
  expect(demo.code, demo.stderr).toBe(0);
  templateRun = (JSON.parse(demo.stdout) as { run_id: string }).run_id;
});
afterAll(async () => {
  if (template !== '') await rm(path.dirname(template), { recursive: true, force: true });
});

/** A copy of the demo project: one finished team run, and replay agents for more. */
async function demoProject(): Promise<string> {
  const dir = await tempProject();
  await cp(template, dir, { recursive: true });
  return dir;
}

/** The environment that configures a remote on `catalog` (objects in the catalog) in namespace `project`. */
function remoteEnv(catalog: string, project: string): Record<string, string> {
  return {
    ARTIFACT_INGEST_REMOTE_CATALOG: catalog,
    ARTIFACT_INGEST_REMOTE_OBJECTS: 'catalog',
    ARTIFACT_INGEST_REMOTE_PROJECT: project,
  };
}

function withPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = PASSWORD;
  return parsed.toString();
}

async function downUrl(catalog: string): Promise<string> {
  const down = new URL(withPassword(catalog));
  down.port = String(await closedPort());
  return down.toString();
}

function expectNoPassword(result: CliResult): void {
  expect(result.stdout).not.toContain(PASSWORD);
  expect(result.stderr).not.toContain(PASSWORD);
}

/** The remote's view of a namespace, as a project (closed after the test). */
function remoteProject(dir: string, catalog: string, namespace: string) {
  const store = remoteStoreOf(catalogSettings(catalog, namespace));
  opened.push(store);
  return openProject(dir, { store });
}

async function teamRun(dir: string, runId: string, env: Record<string, string>): Promise<CliResult> {
  return runCli(['run', 'team', '--input', 'goal=a URL shortener', '--run-id', runId, '--project', dir], {
    env,
  });
}

describeWithPostgres('the fleet commands', (postgres) => {
  it('run pushes in the background: the remote lists the run and replays it as this machine does', async () => {
    const catalog = withPassword(await freshCatalog(postgres));
    const dir = await demoProject();
    const env = remoteEnv(catalog, 'fleet/run');
    const run = await teamRun(dir, 'team-bg', env);
    expect(run.code, run.stderr).toBe(0);
    expectNoPassword(run);
    expect(await listPending(openProject(dir))).toEqual([]);
    const remote = remoteProject(dir, catalog, 'fleet/run');
    expect(await listRecordedRuns(remote)).toEqual(['team-bg']);
    const here = await runCli(['replay', 'team-bg', '--json', '--project', dir]);
    const pulledDir = await tempProject();
    const pull = await runCli(['pull', 'team-bg', '--json', '--project', pulledDir], { env });
    expect(pull.code, pull.stderr).toBe(0);
    const there = await runCli(['replay', 'team-bg', '--json', '--project', pulledDir]);
    expect(there.code, there.stderr).toBe(0);
    expect(JSON.parse(there.stdout)).toEqual(JSON.parse(here.stdout));
  });

  it('demo pushes its run to the remote the environment configures, as any graph run does', async () => {
    const catalog = withPassword(await freshCatalog(postgres));
    const cwd = await tempProject();
    const env = remoteEnv(catalog, 'fleet/demo');
    const demo = await runCli(['demo', '--dir', 'demo', '--json'], { cwd, env });
    expect(demo.code, demo.stderr).toBe(0);
    expectNoPassword(demo);
    const dir = path.join(cwd, 'demo');
    const local = openProject(dir);
    const [runId] = await listRecordedRuns(local);
    expect(runId).toMatch(/^team-/);
    expect(await listPending(local)).toEqual([]);
    const remote = remoteProject(dir, catalog, 'fleet/demo');
    expect(await listRecordedRuns(remote)).toEqual([runId]);
    expect(await replayRun(remote, parseRunId(runId ?? ''))).toEqual(
      await replayRun(local, parseRunId(runId ?? '')),
    );
    await local.store.close();
  });

  it('push sends what the outbox holds after the remote was down, and clears the outbox', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await demoProject();
    const down = remoteEnv(await downUrl(catalog), 'fleet/push');
    const run = await teamRun(dir, 'team-offline', down);
    expect(run.code, run.stderr).toBe(0);
    expect(await listPending(openProject(dir))).toEqual(['team-offline']);

    // Still down: exit 1, the outbox kept, the catalog named without its password and what to check.
    for (const args of [['push'], ['push', '--json']]) {
      const failed = await runCli([...args, '--project', dir], { env: down });
      expect(failed.code).toBe(1);
      expectNoPassword(failed);
      expect(failed.stderr).toContain('unreachable: the catalog postgresql://postgres@127.0.0.1:');
      expect(failed.stderr).toContain('check remote.catalog, the network and the PG* environment');
      expect(failed.stderr).toContain('the outbox (.agent/outbox/) keeps 1 run');
      if (args.includes('--json')) {
        expect(JSON.parse(failed.stdout)).toMatchObject({ error: { code: 'unreachable' } });
      }
    }
    expect(await listPending(openProject(dir))).toEqual(['team-offline']);

    const up = remoteEnv(withPassword(catalog), 'fleet/push');
    const pushed = await runCli(['push', '--json', '--project', dir], { env: up });
    expect(pushed.code, pushed.stderr).toBe(0);
    expectNoPassword(pushed);
    const report = JSON.parse(pushed.stdout) as {
      pushed: { run_id: string; records: number; objects: number; files: number; bytes: number }[];
      failed: unknown[];
      pending: string[];
    };
    expect(report.failed).toEqual([]);
    expect(report.pending).toEqual([]);
    expect(report.pushed.map((entry) => entry.run_id)).toEqual(['team-offline']);
    const [entry] = report.pushed;
    expect(Object.keys(entry ?? {}).sort()).toEqual(['bytes', 'files', 'objects', 'records', 'run_id']);
    expect(entry?.records).toBeGreaterThan(0);
    expect(entry?.objects).toBeGreaterThan(0);
    expect(pushed.stderr).toContain('pushing run team-offline (1/1)');
    expect(await listPending(openProject(dir))).toEqual([]);

    // Idempotent: nothing pending, nothing to do; --all copies nothing new of that run and sends the demo's.
    const again = await runCli(['push', '--project', dir], { env: up });
    expect(again).toMatchObject({ code: 0, stdout: 'nothing to push: the outbox is empty\n' });
    const all = await runCli(['push', '--all', '--json', '--project', dir], { env: up });
    expect(all.code, all.stderr).toBe(0);
    const allReport = JSON.parse(all.stdout) as { pushed: { run_id: string; records: number }[] };
    expect(allReport.pushed.map((item) => [item.run_id, item.records > 0])).toEqual(
      [
        [templateRun, true],
        ['team-offline', false],
      ].sort(),
    );
    expect(await listRecordedRuns(remoteProject(dir, catalog, 'fleet/push'))).toEqual(
      [templateRun, 'team-offline'].sort(),
    );
  });

  it('push RUN_ID sends that run; the built CLI prints the same report', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await demoProject();
    const result = await spawnCli(['push', templateRun, '--project', dir], {
      env: remoteEnv(withPassword(catalog), 'fleet/named'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(
      new RegExp(`^pushed ${templateRun}: \\d+ records, \\d+ objects, \\d+ files, \\d+ bytes\\n$`),
    );
    expectNoPassword(result);
    expect(await listRecordedRuns(remoteProject(dir, catalog, 'fleet/named'))).toEqual([templateRun]);
  });

  it.each([
    ['an unknown option', ['push', '--alll'], 'usage', "unknown option '--alll'; did you mean --all?"],
    ['RUN_IDs and --all', ['push', 'a-run', '--all'], 'usage', 'push takes RUN_IDs or --all, not both'],
    ['pull without RUN_ID', ['pull'], 'usage', 'pull takes exactly one RUN_ID'],
    ['pull with two RUN_IDs', ['pull', 'a', 'b'], 'usage', 'pull takes exactly one RUN_ID'],
    ['pull of a bad id', ['pull', '../x'], 'invalid_id', 'RUN_ID'],
    ['remote without a subcommand', ['remote'], 'usage', 'remote needs a subcommand: init or status'],
    ['an unknown remote subcommand', ['remote', 'stats'], 'usage', 'did you mean status?'],
    ['push of a run this project lacks', ['push', 'no-such-run'], 'unknown_run', 'no run "no-such-run"'],
  ])('refuses %s with exit 2 (%s)', async (_name, args, code, message) => {
    const catalog = await freshCatalog(postgres);
    const dir = await demoProject();
    const result = await runCli([...args, '--json', '--project', dir], {
      env: remoteEnv(withPassword(catalog), 'fleet/usage'),
    });
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expectNoPassword(result);
  });

  it('pull of a run whose content the remote corrupted exits 1 naming it, and writes none of its records', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await demoProject();
    const env = remoteEnv(withPassword(catalog), 'fleet/corrupt');
    expect((await runCli(['push', templateRun, '--project', dir], { env })).code).toBe(0);
    const client = new pg.Client({ connectionString: catalog });
    await client.connect();
    try {
      const { rowCount } = await client.query(
        "UPDATE artifact_ingest_objects SET bytes = convert_to('tampered', 'UTF8') WHERE namespace = 'fleet/corrupt'",
      );
      expect(rowCount).toBeGreaterThan(0);
    } finally {
      await client.end();
    }
    const fresh = await tempProject();
    const pulled = await runCli(['pull', templateRun, '--json', '--project', fresh], { env });
    expect(pulled.code).toBe(1);
    expectNoPassword(pulled);
    const { error } = JSON.parse(pulled.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('corrupt_object');
    expect(error.message).toMatch(/[0-9a-f]{64}/);
    const records = await openProject(fresh).store.info(`.agent/runs/${templateRun}/artifacts.jsonl`);
    expect(records).toBeUndefined();
  });

  it.each([['push'], ['pull'], ['remote']])('%s --help prints its usage and exit codes', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`^Usage: artifact-ingest ${command} `));
    expect(result.stdout).toContain('Exit codes:');
    const viaHelp = await runCli(['help', command]);
    expect(viaHelp.stdout).toBe(result.stdout);
  });

  it('pull of a run the remote does not hold exits 2 (unknown_run), writing nothing', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await tempProject();
    const result = await runCli(['pull', 'ghost-run', '--project', dir], {
      env: remoteEnv(withPassword(catalog), 'fleet/ghost'),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown_run: run ghost-run is not in postgresql://postgres@127.0.0.1:');
    expectNoPassword(result);
    expect(await readdir(dir)).toEqual([]);
  });

  it.each([['push'], ['pull', 'a-run'], ['remote', 'init'], ['remote', 'status']])(
    '%s in a project without a remote exits 2 saying how to configure one',
    async (...args) => {
      const dir = await tempProject();
      const result = await runCli([...args, '--json', '--project', dir], {
        env: {
          ARTIFACT_INGEST_REMOTE_CATALOG: '',
          ARTIFACT_INGEST_REMOTE_OBJECTS: '',
          ARTIFACT_INGEST_REMOTE_PROJECT: '',
        },
      });
      expect(result.code).toBe(2);
      const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
      expect(error.code).toBe('no_remote');
      expect(error.message).toBe(noRemoteMessage(args.join(' ').replace(/ a-run$/, ''), dir));
    },
  );

  it('remote init run by 5 processes at once on a fresh catalog: all exit 0, the schema made once', async () => {
    const catalog = await postgres.createDatabase();
    const dir = await tempProject();
    const env = remoteEnv(withPassword(catalog), 'fleet/init');
    const results = await Promise.all(
      Array.from({ length: 5 }, () => spawnCli(['remote', 'init', '--json', '--project', dir], { env })),
    );
    for (const result of results) {
      expect(result.code, result.stderr).toBe(0);
      expectNoPassword(result);
    }
    const inits = results.map(
      (result) => JSON.parse(result.stdout) as { catalog: string; from: number; to: number },
    );
    expect(inits.filter((init) => init.from === 0)).toHaveLength(1);
    expect(inits.every((init) => init.to === CATALOG_SCHEMA_VERSION)).toBe(true);
    expect(inits[0]?.catalog).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/ai_test_/);
    const client = new pg.Client({ connectionString: catalog });
    await client.connect();
    try {
      const { rows } = await client.query<{ version: number }>(
        'SELECT version FROM artifact_ingest_schema ORDER BY version',
      );
      expect(rows.map((row) => row.version)).toEqual(
        Array.from({ length: CATALOG_SCHEMA_VERSION }, (_, index) => index + 1),
      );
    } finally {
      await client.end();
    }
    const text = await runCli(['remote', 'init', '--project', dir], { env });
    expect(text.stdout).toMatch(/: schema (\d+) -> \1 \(already current\)\n$/);
  });

  it('remote status --json: reachable, with the schema, the namespace runs and what is pending', async () => {
    const catalog = await postgres.createDatabase();
    const dir = await demoProject();
    const env = remoteEnv(withPassword(catalog), 'fleet/status');
    const before = await runCli(['remote', 'status', '--json', '--project', dir], { env });
    expect(before.code).toBe(1);
    expect(JSON.parse(before.stdout)).toMatchObject({
      catalog: { reachable: true, schema_version: 0, init_needed: true },
      objects: { reachable: false, error: { code: 'schema_missing' } },
      runs: null,
      usable: false,
    });
    expect((await runCli(['remote', 'init', '--project', dir], { env })).code).toBe(0);
    expect((await runCli(['push', templateRun, '--project', dir], { env })).code).toBe(0);
    await markPending(openProject(dir), parseRunId(templateRun));

    const status = await runCli(['remote', 'status', '--json', '--project', dir], { env });
    expect(status.code, status.stderr).toBe(0);
    expectNoPassword(status);
    const json = JSON.parse(status.stdout) as Record<string, unknown>;
    expect(json).toEqual({
      project: 'fleet/status',
      catalog: {
        location: expect.stringMatching(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/ai_test_/) as unknown,
        reachable: true,
        schema_version: CATALOG_SCHEMA_VERSION,
        package_schema_version: CATALOG_SCHEMA_VERSION,
        init_needed: false,
        too_new: false,
      },
      objects: { location: 'the catalog', reachable: true },
      runs: 1,
      pending: [templateRun],
      usable: true,
    });
    const text = await runCli(['remote', 'status', '--project', dir], { env });
    expect(text.stdout).toContain(`pending  1 in .agent/outbox/: ${templateRun}`);
    expect(text.stdout).toContain('runs     1 in this namespace');
  });

  it('remote status --json when the catalog is down: exit 1, each part with its error, no password', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await tempProject();
    const status = await runCli(['remote', 'status', '--json', '--project', dir], {
      env: remoteEnv(await downUrl(catalog), 'fleet/down'),
    });
    expect(status.code).toBe(1);
    expectNoPassword(status);
    const json = JSON.parse(status.stdout) as {
      catalog: { reachable: boolean; location: string; error: { code: string; message: string } };
      objects: { reachable: boolean; error: { code: string } };
    };
    expect(json).toMatchObject({
      project: 'fleet/down',
      catalog: { reachable: false, error: { code: 'unreachable' } },
      objects: { location: 'the catalog', reachable: false, error: { code: 'unreachable' } },
      runs: null,
      pending: [],
      usable: false,
    });
    expect(json.catalog.error.message).toContain(json.catalog.location);
    expect(json.catalog.error.message).toContain('PGPASSWORD');
  });

  it('push --json whose reader has gone ends quietly with its own exit code (EPIPE)', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await demoProject();
    const env = { ...process.env, ...remoteEnv(catalog, 'fleet/epipe') };
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, 'push', '--all', '--json', '--project', dir], { env });
      // The reader is gone before the command writes: its one write meets a closed pipe.
      child.stdout.destroy();
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ code, stderr });
      });
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).not.toContain('EPIPE');
    // And through a shell pipe, as a user types it.
    const piped = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(
        '/bin/bash',
        [
          '-c',
          `"${process.execPath}" "${CLI}" push --all --json --project "${dir}" | head -c 100; exit "\${PIPESTATUS[0]}"`,
        ],
        { env },
      );
      let stdout = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        resolve({ code, stdout });
      });
    });
    expect(piped.code).toBe(0);
    expect(piped.stdout.startsWith('{')).toBe(true);
  });
});
