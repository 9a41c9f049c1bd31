/**
 * The remote's stress rows (issue 26): pushes and graph runs with a remote SIGKILLed at random moments, a run with
 * the catalog down, and the pushing session's connection reset by the server, each followed by a push and a count
 * of what the remote lacks or holds twice of the local runs: records (by artifactId per run), event lines (by
 * content per run) and objects (by hash). Real PostgreSQL and s3rver (test/helpers/fleet-servers.ts); without
 * PostgreSQL the rows are skipped with one line.
 */
import { spawn } from 'node:child_process';

import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { referencedObjects } from '../../src/artifacts/bundle/bundle-sources.js';
import { parseRecordLines } from '../../src/artifacts/store/record-lines.js';
import { pushRuns } from '../../src/fleet/index.js';
import { artifactRecordsPath, parseRunId, runEventsPath } from '../../src/project/index.js';
import { openRemoteStore } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import { listRecordedRuns, openProject } from '../../src/store/index.js';
import type { Project } from '../../src/store/index.js';
import { graphOf, writeReplies } from '../bench/graph-runs.js';
import { startFleetServers } from '../helpers/fleet-servers.js';
import type { FleetServers } from '../helpers/fleet-servers.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { DEFAULT_CAP_MS } from './child-process.js';
import { zero } from './stress-counts.js';
import type { CountKey, Counts } from './stress-counts.js';
import { tempRoot } from './stress-project.js';

const REMOTE_COUNTS: readonly CountKey[] = ['remoteMissing', 'remoteDuplicated', 'hangs'];
/** Nodes of each graph run of these rows: enough for several background pushes, short enough for 50 rounds. */
const NODES = 20;
const CHILD = fileURLToPath(new URL('./remote-child.ts', import.meta.url));
const TSX = createRequire(import.meta.url).resolve('tsx');

let servers: Promise<FleetServers | string> | undefined;

/** The servers, started once for all the rows (undefined and a line on stderr when there is no PostgreSQL). */
async function fleetServers(): Promise<FleetServers | undefined> {
  const started = await (servers ??= startFleetServers());
  if (typeof started === 'string') {
    process.stderr.write(`remote stress rows skipped: ${started}\n`);
    return undefined;
  }
  return started;
}

/** Stops the servers if a row started them. */
export async function stopRemoteStress(): Promise<void> {
  const started = await servers;
  if (started !== undefined && typeof started !== 'string') await started.stop();
}

/** Runs remote-child.ts to its end, a planned SIGKILL after `killAfterMs`, or the cap (a hang); its seconds. */
function runChild(
  args: readonly string[],
  settings: RemoteStoreSettings,
  killAfterMs?: number,
): Promise<{ seconds: number; capped: boolean; code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', TSX, CHILD, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, ARTIFACT_INGEST_STRESS_REMOTE: JSON.stringify(settings) },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
    let capped = false;
    const planned =
      killAfterMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    const cap = setTimeout(() => {
      capped = true;
      child.kill('SIGKILL');
    }, DEFAULT_CAP_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(planned);
      clearTimeout(cap);
      resolve({ seconds: (performance.now() - started) / 1000, capped, code, stderr });
    });
  });
}

/** The whole lines of `text` (a cut last line left out), counted. */
function lineCounts(
  text: string | undefined,
  keyOf: (line: string) => string = (line) => line,
): Map<string, number> {
  const counts = new Map<string, number>();
  if (text === undefined) return counts;
  const lines = text.split('\n');
  lines.pop();
  for (const line of lines) if (line !== '') counts.set(keyOf(line), (counts.get(keyOf(line)) ?? 0) + 1);
  return counts;
}

/** Adds to `counts` what `remote` lacks of `local` (missing) and holds more often (duplicated). */
function compare(counts: Counts, local: Map<string, number>, remote: Map<string, number>): void {
  for (const [key, times] of local) {
    const there = remote.get(key) ?? 0;
    if (there < times) counts.remoteMissing += times - there;
    if (there > times) counts.remoteDuplicated += there - times;
  }
  for (const [key, there] of remote) if (!local.has(key)) counts.remoteDuplicated += there;
}

/**
 * Counts, for every run of `local`, the records (by artifactId), event lines (by content) and objects (by hash)
 * the remote lacks or holds twice. An object is stored under its hash, so it cannot be there twice: objects count
 * as missing only.
 */
export async function countRemoteProblems(
  counts: Counts,
  local: Project,
  settings: RemoteStoreSettings,
): Promise<void> {
  const store = await openRemoteStore(settings);
  try {
    const objects = await store.openObjects({ readOnly: true });
    for (const runId of await listRecordedRuns(local)) {
      const recordsKey = artifactRecordsPath(runId);
      const localRecords = await local.store.readText(recordsKey);
      const remoteRecords = await store.readText(recordsKey);
      const idOf = (line: string): string => (JSON.parse(line) as { artifactId: string }).artifactId;
      compare(counts, lineCounts(localRecords, idOf), lineCounts(remoteRecords, idOf));
      const eventsKey = runEventsPath(runId);
      compare(
        counts,
        lineCounts(await local.store.readText(eventsKey)),
        lineCounts(await store.readText(eventsKey)),
      );
      const records = parseRecordLines(localRecords ?? '', recordsKey).records;
      for (const hash of referencedObjects(records))
        if (!(await objects.has(hash))) counts.remoteMissing += 1;
    }
    await objects.close();
  } finally {
    await store.close();
  }
}

/** A project with the replies of a NODES-node chain, and `runs` runs recorded without a remote. */
async function projectWithRuns(root: string, runs: number): Promise<Project> {
  const projectDir = path.join(root, 'project');
  await writeReplies(path.join(projectDir, 'replies'), NODES);
  const agent = createReplayAgent('replay', { kind: 'replay', dir: path.join(projectDir, 'replies') });
  for (let i = 0; i < runs; i++) {
    const result = await runGraph({
      projectDir,
      graph: graphOf('chain', NODES),
      inputs: { goal: 'stress' },
      agentFor: () => agent,
      runId: parseRunId(`local-${String(i)}`),
      ingest: { enabled: true },
    });
    if (result.status !== 'completed') throw new Error(`stress run ${result.status}`);
  }
  return openProject(projectDir);
}

/** Pushes every run of `local` to `settings`'s remote in this process; failures are thrown. */
async function pushAll(local: Project, settings: RemoteStoreSettings): Promise<void> {
  const store = await openRemoteStore(settings);
  try {
    const report = await pushRuns(local, openProject(local.dir, { store }), { all: true });
    const failed = report.failed[0];
    if (failed !== undefined)
      throw new Error(`push of ${failed.runId} failed: ${failed.code}: ${failed.message}`);
  } finally {
    await store.close();
  }
}

async function withServers(body: (servers: FleetServers, counts: Counts) => Promise<void>): Promise<Counts> {
  const counts = zero(REMOTE_COUNTS);
  const started = performance.now();
  const running = await fleetServers();
  if (running === undefined) {
    counts.detail = 'skipped: no PostgreSQL';
    return counts;
  }
  await body(running, counts);
  counts.seconds = (performance.now() - started) / 1000;
  return counts;
}

/** `push` SIGKILLed at a random moment, `kills` times (each into a fresh namespace), then pushed again. */
export function remotePushKills(kills: number): Promise<Counts> {
  return withServers(async (running, counts) => {
    const root = await tempRoot('remote-push-kill');
    const local = await projectWithRuns(root, 2);
    const catalog = await running.freshCatalog();
    const warm = await runChild(['push', local.dir], running.settings(catalog));
    if (warm.code !== 0) throw new Error(`push child failed: ${warm.stderr}`);
    for (let round = 0; round < kills; round++) {
      const settings = running.settings(catalog, `push-kill-${String(round)}`);
      const killed = await runChild(['push', local.dir], settings, Math.random() * warm.seconds * 1000);
      if (killed.capped) counts.hangs += 1;
      await pushAll(local, settings);
      await countRemoteProblems(counts, local, settings);
      counts.trials += 1;
    }
  });
}

/** A graph run with a remote SIGKILLed at a random moment, `kills` times, then pushed. */
export function remoteRunKills(kills: number): Promise<Counts> {
  return withServers(async (running, counts) => {
    const root = await tempRoot('remote-run-kill');
    const local = await projectWithRuns(root, 0);
    const catalog = await running.freshCatalog();
    const settings = running.settings(catalog, 'run-kill');
    const warm = await runChild(['run', local.dir, 'warm', String(NODES)], settings);
    if (warm.code !== 0) throw new Error(`run child failed: ${warm.stderr}`);
    for (let round = 0; round < kills; round++) {
      const killed = await runChild(
        ['run', local.dir, `kill-${String(round)}`, String(NODES)],
        settings,
        Math.random() * warm.seconds * 1000,
      );
      if (killed.capped) counts.hangs += 1;
      counts.trials += 1;
    }
    // One push after all the kills: every run, killed anywhere, ends in the remote exactly once.
    await pushAll(local, settings);
    await countRemoteProblems(counts, local, settings);
  });
}

/** Graph runs with the catalog down (a closed port) for the whole run, then `push` with it up. */
export function remoteDownRuns(runs: number): Promise<Counts> {
  return withServers(async (running, counts) => {
    const root = await tempRoot('remote-down');
    const local = await projectWithRuns(root, 0);
    const catalog = await running.freshCatalog();
    const settings = running.settings(catalog, 'down');
    const down = {
      ...settings,
      catalog: `postgresql://postgres@127.0.0.1:${String(await closedPort())}/down`,
    };
    for (let round = 0; round < runs; round++) {
      const run = await runChild(['run', local.dir, `down-${String(round)}`, String(NODES)], down);
      if (run.capped) counts.hangs += 1;
      if (run.code !== 0) throw new Error(`a run with the remote down failed: ${run.stderr}`);
      counts.trials += 1;
    }
    await pushAll(local, settings);
    await countRemoteProblems(counts, local, settings);
  });
}

/** The pushing session's connections terminated by the server (pg_terminate_backend) at a random moment, then a push. */
export function remoteResets(resets: number): Promise<Counts> {
  return withServers(async (running, counts) => {
    const root = await tempRoot('remote-reset');
    const local = await projectWithRuns(root, 2);
    const catalog = await running.freshCatalog();
    const admin = new pg.Client({ connectionString: catalog });
    await admin.connect();
    try {
      let t0 = performance.now();
      await pushAll(local, running.settings(catalog, 'reset-warm'));
      const duration = performance.now() - t0;
      for (let round = 0; round < resets; round++) {
        const settings = running.settings(catalog, `reset-${String(round)}`);
        const store = await openRemoteStore(settings);
        t0 = performance.now();
        const terminate = new Promise<void>((resolve) => {
          setTimeout(() => {
            admin
              .query(
                `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                 WHERE datname = current_database() AND application_name LIKE 'artifact-ingest@%'`,
              )
              .then(
                () => {
                  resolve();
                },
                () => {
                  resolve();
                },
              );
          }, Math.random() * duration);
        });
        // A push that loses its connection fails that run and goes on with the next: what failed is pushed next time.
        await pushRuns(local, openProject(local.dir, { store }), { all: true }).catch(() => undefined);
        await terminate;
        await store.close().catch(() => undefined);
        await pushAll(local, settings);
        await countRemoteProblems(counts, local, settings);
        counts.trials += 1;
      }
    } finally {
      await admin.end();
    }
  });
}
