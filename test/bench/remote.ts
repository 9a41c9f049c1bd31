/**
 * The remote's part of `npm run bench` (issue 26): push throughput beside a floor of plain multi-row INSERTs and
 * PUTs of the same rows and objects, fleet reads (`log --remote`, `checkout --remote`) at 10,000 and 1,000,000
 * records, and a graph run with an unreachable remote beside one with none. Starts its own PostgreSQL (Debian's
 * initdb/pg_ctl) and s3rver; without PostgreSQL it returns one line saying why. Run alone with
 * `npx tsx test/bench/remote.ts [push|reads|unreachable ...]` (prints the section).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import pg from 'pg';
import type { Pool } from 'pg';
import { checkoutWorkspace } from '../../src/artifacts/lineage/checkout-workspace.js';
import { logPath } from '../../src/artifacts/lineage/log-path.js';
import { pushRuns } from '../../src/fleet/index.js';
import { parseRunId } from '../../src/project/index.js';
import type { RunId } from '../../src/project/index.js';
import { catalogLocation, catalogStore, openCatalogPool, openObjectBackend } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import { openProject } from '../../src/store/index.js';
import type { Project } from '../../src/store/index.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { startFleetServers } from '../helpers/fleet-servers.js';
import type { FleetServers } from '../helpers/fleet-servers.js';
import { graphOf, writeReplies } from './graph-runs.js';
import { fillCatalog } from './remote-fill.js';
import type { Fill, RunTemplate } from './remote-fill.js';
import { parseRecordLines } from '../../src/artifacts/store/record-lines.js';

const fmt = (value: number): string =>
  value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Nodes of each run (chain, ingest on: one or two files per node). */
const NODES = 50;
/** Runs pushed per round. */
const PUSHED_RUNS = 2;
const PUSH_ROUNDS = 7;

/** Records `count` 50-node chain runs (replay agent, ingest on) into a new project; their ids. */
export async function recordRuns(projectDir: string, count: number, prefix = 'run'): Promise<RunId[]> {
  const replies = path.join(projectDir, 'replies');
  await writeReplies(replies, NODES);
  const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
  const runIds: RunId[] = [];
  for (let i = 0; i < count; i++) {
    const runId = parseRunId(`${prefix}-${String(i)}`);
    const result = await runGraph({
      projectDir,
      graph: graphOf('chain', NODES),
      inputs: { goal: 'a bench' },
      agentFor: () => agent,
      runId,
      ingest: { enabled: true },
    });
    if (result.status !== 'completed') throw new Error(`bench run ${runId} ${result.status}`);
    runIds.push(runId);
  }
  return runIds;
}

/** A pool whose queries (on the pool and on its clients) are counted. */
function countingPool(pool: Pool): { pool: Pool; count: () => number } {
  let queries = 0;
  const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    queries += 1;
    return query(...args);
  };
  pool.on('connect', (client) => {
    const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      queries += 1;
      return clientQuery(...args);
    };
  });
  return { pool, count: () => queries };
}

/** The remote of `settings` as a Project, its queries counted. */
function remoteProject(
  settings: RemoteStoreSettings,
  dir: string,
): { project: Project; queries: () => number } {
  const counted = countingPool(openCatalogPool(settings));
  const store = catalogStore({
    pool: counted.pool,
    namespace: settings.project,
    objects: openObjectBackend(settings, counted.pool),
    location: `${catalogLocation(settings.catalog)} (project ${settings.project})`,
  });
  return { project: openProject(dir, { store }), queries: counted.count };
}

/** Rows per multi-row INSERT of the floor. */
const FLOOR_BATCH = 500;

/** Multi-row INSERTs of `rows` (arrays of column values) into `table`, FLOOR_BATCH at a time. */
async function insertRows(
  pool: Pool,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<number> {
  let statements = 0;
  for (let at = 0; at < rows.length; at += FLOOR_BATCH) {
    const batch = rows.slice(at, at + FLOOR_BATCH);
    const values: unknown[] = [];
    const tuples = batch.map((row) => {
      const placeholders = row.map((value) => {
        values.push(value);
        return `$${String(values.length)}`;
      });
      return `(${placeholders.join(', ')})`;
    });
    await pool.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, values);
    statements += 1;
  }
  return statements;
}

interface PushRound {
  readonly pushSeconds: number;
  readonly floorSeconds: number;
  readonly queries: number;
  readonly floorStatements: number;
  readonly files: number;
  readonly chunks: number;
  readonly bytes: number;
  readonly objects: number;
}

/** One round: push the runs into a fresh namespace, then the floor writes the same rows and objects. */
async function pushRound(
  servers: FleetServers,
  catalog: string,
  local: Project,
  runIds: readonly RunId[],
  round: number,
): Promise<PushRound> {
  const settings = servers.settings(catalog, `push-${String(round)}-${String(Date.now())}`);
  const remote = remoteProject(settings, local.dir);
  const t0 = performance.now();
  const report = await pushRuns(local, remote.project, { runIds });
  const pushSeconds = (performance.now() - t0) / 1000;
  const queries = remote.queries();
  await remote.project.store.close();
  if (report.failed.length > 0) throw new Error(`push failed: ${JSON.stringify(report.failed[0])}`);

  const pool = new pg.Pool({ connectionString: catalog, max: 1 });
  const client = servers.s3.client();
  try {
    const files = await pool.query<{ key: string; version: string; size: string; modified_ms: string }>(
      'SELECT key, version, size, modified_ms FROM artifact_ingest_files WHERE namespace = $1',
      [settings.project],
    );
    const chunks = await pool.query<{ key: string; version: string; start: string; bytes: Buffer }>(
      'SELECT key, version, start, bytes FROM artifact_ingest_chunks WHERE namespace = $1 ORDER BY seq',
      [settings.project],
    );
    const objects: string[] = [];
    for (let token: string | undefined; ;) {
      const page = await client.send(
        new ListObjectsV2Command({
          Bucket: servers.bucket,
          Prefix: `${settings.objects.kind === 's3' ? settings.objects.prefix : ''}/`,
          ContinuationToken: token,
        }),
      );
      for (const item of page.Contents ?? []) if (item.Key !== undefined) objects.push(item.Key);
      token = page.NextContinuationToken;
      if (token === undefined) break;
    }
    const bodies = await Promise.all(
      objects.map((key) => {
        const [hex2, hex62] = key.split('/').slice(-2);
        return readFile(path.join(local.dir, '.agent', 'objects', 'sha256', hex2 ?? '', hex62 ?? ''));
      }),
    );
    const floorNamespace = `${settings.project}-floor`;
    const floorPrefix = `floor-${String(round)}-${String(Date.now())}`;
    const t1 = performance.now();
    let statements = await insertRows(
      pool,
      'artifact_ingest_files',
      ['namespace', 'key', 'version', 'size', 'modified_ms'],
      files.rows.map((row) => [floorNamespace, row.key, row.version, row.size, row.modified_ms]),
    );
    statements += await insertRows(
      pool,
      'artifact_ingest_chunks',
      ['namespace', 'key', 'version', 'start', 'bytes'],
      chunks.rows.map((row) => [floorNamespace, row.key, row.version, row.start, row.bytes]),
    );
    for (const [index, key] of objects.entries()) {
      await client.send(
        new PutObjectCommand({
          Bucket: servers.bucket,
          Key: `${floorPrefix}/${key.split('/').slice(1).join('/')}`,
          Body: bodies[index] ?? Buffer.alloc(0),
        }),
      );
    }
    const floorSeconds = (performance.now() - t1) / 1000;
    return {
      pushSeconds,
      floorSeconds,
      queries,
      floorStatements: statements,
      files: files.rows.length,
      chunks: chunks.rows.length,
      bytes: chunks.rows.reduce((sum, row) => sum + row.bytes.byteLength, 0),
      objects: objects.length,
    };
  } finally {
    await pool.end();
  }
}

/** Push throughput beside the floor; the markdown part. */
async function pushPart(servers: FleetServers, root: string): Promise<string> {
  const projectDir = await mkdtemp(path.join(root, 'push-'));
  console.log(`remote: recording ${String(PUSHED_RUNS)} runs of ${String(NODES)} nodes ...`);
  const runIds = await recordRuns(projectDir, PUSHED_RUNS);
  const local = openProject(projectDir);
  const catalog = await servers.freshCatalog();
  // One round not counted: the first push of a process loads pg, the S3 client and the copy's modules.
  await pushRound(servers, catalog, local, runIds.slice(0, 1), -1);
  const rounds: PushRound[] = [];
  for (let round = 0; round < PUSH_ROUNDS; round++) {
    rounds.push(await pushRound(servers, catalog, local, runIds, round));
    const last = rounds.at(-1);
    if (last !== undefined)
      console.log(
        `remote: push ${fmt(last.pushSeconds)} s, floor ${fmt(last.floorSeconds)} s, ${String(last.queries)} queries`,
      );
  }
  await local.store.close();
  const first = rounds[0];
  if (first === undefined) throw new Error('no push round');
  const push = median(rounds.map((round) => round.pushSeconds));
  const floor = median(rounds.map((round) => round.floorSeconds));
  const ratio = median(rounds.map((round) => round.floorSeconds / round.pushSeconds));
  const records = first.files; // files rows, for the text
  return `### Push throughput

${String(PUSHED_RUNS)} recorded runs (${String(NODES)}-node chains through \`runGraph\` with the replay agent, ingest on:
one or two files per node) pushed with \`pushRuns\` into a fresh namespace of the catalog (objects in s3rver),
beside a floor that writes the same rows the push left in the catalog (read back after it: ${String(records)}
files rows, ${String(first.chunks)} chunk rows, ${fmt(first.bytes / 1e6)} MB) with plain multi-row INSERTs of
${String(FLOOR_BATCH)} rows (${String(first.floorStatements)} statements) through the same driver into another
namespace, and PUTs the same ${String(first.objects)} objects one after another through the same S3 client.
The push stores each new object with one conditional PUT (If-None-Match: *); the server here
${conditionalMode() === 'ignored' ? 'is s3rver alone, which ignores the condition (S3 checks it inside the PUT)' : "is s3rver behind the tests' proxy, which answers the condition with a HEAD to s3rver first"}.
Median of ${String(PUSH_ROUNDS)} rounds, each a push then its floor. Required (issue 26): push throughput at
least half the floor's.

| runs | push s | floor s | floor / push (throughput ratio) | queries per push of a run |
|---:|---:|---:|---:|---:|
| ${String(PUSHED_RUNS)} | ${fmt(push)} | ${fmt(floor)} | ${fmt(ratio)} | ${fmt(first.queries / PUSHED_RUNS)} |
`;
}

/** `--reads-sizes 10000,100000`: other catalog sizes (while developing). */
function readSizes(): readonly number[] {
  const at = process.argv.indexOf('--read-sizes');
  return at === -1 ? READ_SIZES : (process.argv[at + 1] ?? '').split(',').map(Number);
}

/** `--s3-conditional enforced|ignored`: how the bench's S3 server answers conditional writes (default ignored). */
function conditionalMode(): 'enforced' | 'ignored' {
  const at = process.argv.indexOf('--s3-conditional');
  return at !== -1 && process.argv[at + 1] === 'enforced' ? 'enforced' : 'ignored';
}

/** The whole section; one line when there is no PostgreSQL. */
export async function remoteSection(
  parts: readonly string[] = ['push', 'reads', 'unreachable'],
): Promise<string> {
  // s3rver alone by default: it ignores If-None-Match as S3 makes that check inside the PUT, at no request of its
  // own; `--s3-conditional enforced` puts the tests' proxy in front, which asks s3rver with a HEAD first.
  const servers = await startFleetServers({ conditionalWrites: conditionalMode() });
  if (typeof servers === 'string') {
    const line = `## Remote (issue 26)\n\nSkipped: ${servers}.\n`;
    console.log(line);
    return line;
  }
  const root = await mkdtemp(path.join(tmpdir(), 'ai-bench-remote-'));
  try {
    const texts: string[] = [];
    if (parts.includes('push')) texts.push(await pushPart(servers, root));
    if (parts.includes('reads')) texts.push(await readsPart(servers, root, readSizes()));
    if (parts.includes('unreachable')) texts.push(await unreachablePart(root));
    return `## Remote (issue 26): push, fleet reads, an unreachable remote

PostgreSQL ${await serverVersion(servers)} started by the bench (Debian's binaries, fsync off as in the tests) and
s3rver, both on this machine: the figures are the catalog's and the copy's work, not a network's.

${texts.join('\n')}`;
  } finally {
    await rm(root, { recursive: true, force: true });
    await servers.stop();
  }
}

async function serverVersion(servers: FleetServers): Promise<string> {
  const client = new pg.Client({ connectionString: servers.postgres.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server_version: string }>('SHOW server_version');
    return rows[0]?.server_version.split(' ')[0] ?? '?';
  } finally {
    await client.end();
  }
}

/** The run folder of `runId` in `projectDir` as a template: its records, and its other files by relative key. */
async function runTemplate(projectDir: string, runId: string): Promise<RunTemplate> {
  const folder = path.join(projectDir, '.agent', 'runs', runId);
  const files = new Map<string, Buffer>();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
    if (relative === 'artifacts.jsonl' || relative.endsWith('.lock')) continue;
    files.set(relative, await readFile(path.join(entry.parentPath, entry.name)));
  }
  const text = await readFile(path.join(folder, 'artifacts.jsonl'), 'utf8');
  return { runId, records: parseRecordLines(text, 'artifacts.jsonl').records, files };
}

/** Catalog sizes the fleet reads are measured at (records). */
const READ_SIZES = [10_000, 1_000_000] as const;
const READ_ROUNDS = 7;
const LOGGED_PATH = 'workspace/src/n1-0.ts';
const CHECKOUT_STEP = 25;

/** `log PATH --remote` and `checkout --remote` of one run at 10K and 1M records; the markdown part. */
async function readsPart(
  servers: FleetServers,
  root: string,
  sizes: readonly number[] = READ_SIZES,
): Promise<string> {
  const projectDir = await mkdtemp(path.join(root, 'reads-'));
  const [measured] = await recordRuns(projectDir, 1, 'measured');
  if (measured === undefined) throw new Error('no measured run');
  const template = await runTemplate(projectDir, measured);
  const local = openProject(projectDir);
  const fleetDir = await mkdtemp(path.join(root, 'fleet-'));
  const catalogs: { size: number; fleet: Project; fill: Fill; close: () => Promise<void> }[] = [];
  for (const size of sizes) {
    const catalog = await servers.freshCatalog();
    const settings = servers.settings(catalog, `reads-${String(size)}`);
    const pool = new pg.Pool({ connectionString: catalog, max: 1 });
    console.log(`remote: filling a catalog with ${String(size)} records ...`);
    const fill = await fillCatalog(
      pool,
      settings.project,
      template,
      size - template.records.length,
      Date.now() - 3_600_000,
    );
    await pool.end();
    console.log(
      `remote: filled ${String(fill.records)} records in ${fmt(fill.seconds)} s (${fmt(fill.bytes / 1e6)} MB)`,
    );
    const remote = remoteProject(settings, local.dir);
    const report = await pushRuns(local, remote.project, { runIds: [measured] });
    if (report.failed.length > 0) throw new Error(`push failed: ${JSON.stringify(report.failed[0])}`);
    await remote.project.store.close();
    const fleet = remoteProject(settings, fleetDir);
    catalogs.push({
      size,
      fleet: openProject(fleetDir, { store: fleet.project.store }),
      fill,
      close: () => fleet.project.store.close(),
    });
  }
  await local.store.close();
  const times = new Map<string, number[]>();
  const add = (name: string, ms: number): void => {
    times.set(name, [...(times.get(name) ?? []), ms]);
  };
  const answers = new Map<string, string>();
  let out = 0;
  try {
    // Round -1 warms the modules and the server's caches; it is not counted.
    for (let round = -1; round < READ_ROUNDS; round++) {
      for (const { size, fleet } of catalogs) {
        let t0 = performance.now();
        const log = await logPath(fleet, LOGGED_PATH);
        const logMs = performance.now() - t0;
        const to = path.join(root, `checkout-${String(out++)}`);
        t0 = performance.now();
        const checkout = await checkoutWorkspace(fleet, { to, runId: measured, step: CHECKOUT_STEP });
        const checkoutMs = performance.now() - t0;
        await rm(to, { recursive: true, force: true });
        const answer = `log: ${String(log.versions.length)} version(s); checkout: ${String(checkout.files.length)} files`;
        if ((answers.get(String(size)) ?? answer) !== answer)
          throw new Error(`answers changed at ${String(size)}`);
        answers.set(String(size), answer);
        if (round < 0) continue;
        add(`log ${String(size)}`, logMs);
        add(`checkout ${String(size)}`, checkoutMs);
      }
    }
  } finally {
    for (const { close } of catalogs) await close();
  }
  const [small, large] = catalogs;
  if (small === undefined || large === undefined) throw new Error('two catalog sizes are needed');
  if (answers.get(String(small.size)) !== answers.get(String(large.size)))
    throw new Error(`the two catalogs answer differently: ${JSON.stringify([...answers])}`);
  const row = (name: string, label: string): string => {
    const a = median(times.get(`${name} ${String(small.size)}`) ?? []);
    const b = median(times.get(`${name} ${String(large.size)}`) ?? []);
    return `| ${label} | ${fmt(a)} | ${fmt(b)} | ${fmt(b / a)}x |`;
  };
  const fillRow = ({ size, fill }: (typeof catalogs)[number]): string =>
    `| ${String(size)} | ${String(fill.runs)} | ${String(fill.files)} | ${String(fill.chunks)} | ${fmt(fill.bytes / 1e6)} | ${String(fill.segments)} | ${fmt(fill.seconds)} |`;
  return `### Fleet reads at 10,000 and 1,000,000 records

One real run (\`measured-0\`, a ${String(NODES)}-node chain, ${String(template.records.length)} records) pushed with
\`pushRuns\` on top of a catalog filled in bulk with runs copied from it: each background run's files (its run
folder with the run id replaced, its artifacts.jsonl), one append per path to the path index, a line of the run
order index and its workspace versions appended to the history journal, rolled at 128 KB with the heads and the
segment entry a push writes, all rendered by the product's own functions (renderRecordLines, foldHeads,
indexFileOf) and inserted with multi-row INSERTs of arrays (\`unnest\`, 8 MB per statement) in one session, then
ANALYZEd (test/bench/remote-fill.ts). The background runs edit a bounded set of paths (the measured run's, moved
below \`shared/\`: a project whose files are reworked run after run); their objects are left out, as no read here
opens them. Each catalog is a database of its own.

| catalog records | runs | files rows | chunk rows | MB | rolled segments | fill s |
|---:|---:|---:|---:|---:|---:|---:|
${catalogs.map(fillRow).join('\n')}

\`log ${LOGGED_PATH} --remote\` (\`logPath\` on a Project whose store is the remote) and \`checkout --remote
--run measured-0 --step ${String(CHECKOUT_STEP)}\` (\`checkoutWorkspace\`, into a fresh folder), both catalogs read in
each round, median of ${String(READ_ROUNDS)} rounds after one not counted. Both give the same answer (${answers.get(String(small.size)) ?? '?'}).
Required (issue 26): the cost at 1M within 1.5x of the cost at 10K.

| read | ${String(small.size)} records: ms | ${String(large.size)} records: ms | 1M / 10K |
|---|---:|---:|---:|
${row('log', `\`log ${LOGGED_PATH} --remote\``)}
${row('checkout', `\`checkout --remote --run measured-0 --step ${String(CHECKOUT_STEP)}\``)}
`;
}

/** A TCP server that accepts connections and never answers; its port. */
async function silentServer(): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    },
  };
}

const UNREACHABLE_ROUNDS = 7;

/** A graph run of NODES nodes with `remote` (or none) in a fresh project: its seconds. */
async function timedRun(root: string, remote: RemoteStoreSettings | undefined): Promise<number> {
  const projectDir = await mkdtemp(path.join(root, 'unreachable-'));
  const replies = path.join(projectDir, 'replies');
  await writeReplies(replies, NODES);
  const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
  const t0 = performance.now();
  const result = await runGraph({
    projectDir,
    graph: graphOf('chain', NODES),
    inputs: { goal: 'a bench' },
    agentFor: () => agent,
    runId: parseRunId('bench'),
    ingest: { enabled: true },
    ...(remote === undefined ? {} : { remote }),
  });
  const seconds = (performance.now() - t0) / 1000;
  if (result.status !== 'completed') throw new Error(`bench run ${result.status}`);
  await rm(projectDir, { recursive: true, force: true });
  return seconds;
}

/** A run with the remote refused or silent beside one with none; the markdown part. */
async function unreachablePart(root: string): Promise<string> {
  const refusedPort = await closedPort();
  const silent = await silentServer();
  const settingsAt = (port: number): RemoteStoreSettings => ({
    project: 'bench',
    catalog: `postgresql://bench@127.0.0.1:${String(port)}/bench`,
    objects: { kind: 'catalog' },
    s3: { endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'when_required' },
  });
  const none: number[] = [];
  const refused: number[] = [];
  const quiet: number[] = [];
  try {
    await timedRun(root, undefined);
    for (let round = 0; round < UNREACHABLE_ROUNDS; round++) {
      none.push(await timedRun(root, undefined));
      refused.push(await timedRun(root, settingsAt(refusedPort)));
      quiet.push(await timedRun(root, settingsAt(silent.port)));
      console.log(
        `remote: none ${fmt(none.at(-1) ?? 0)} s, refused ${fmt(refused.at(-1) ?? 0)} s, silent ${fmt(quiet.at(-1) ?? 0)} s`,
      );
    }
  } finally {
    await silent.close();
  }
  const ratio = (times: readonly number[]): number =>
    median(times.map((time, round) => time / (none[round] ?? time)));
  return `### A run with the remote unreachable

Graph runs of ${String(NODES)} nodes (chain, replay agent, ingest on), each in a fresh project, with no remote, with a
remote whose catalog port refuses connections (a closed port on 127.0.0.1), and with one that accepts the
connection and never answers; interleaved rounds, median of ${String(UNREACHABLE_ROUNDS)}, the ratio taken within each
round. Required (issue 26): refused within 1.05x of none.

| remote | seconds | / no remote |
|---|---:|---:|
| none | ${fmt(median(none))} | 1.00x |
| connection refused | ${fmt(median(refused))} | ${fmt(ratio(refused))}x |
| accepts, never answers (not required) | ${fmt(median(quiet))} | ${fmt(ratio(quiet))}x |

A refused connection fails at once: the push's first attempt writes one WARNING event and the run goes on as if
it had no remote (the outbox keeps it). A catalog that never answers is bounded by two waits of the background
push (src/fleet/run-push.ts): its connection is given up after 5 s in the background, and the run's end waits at
most 1 s for a remote still connecting, so such a run takes at most about 1 s longer than without a remote,
whatever its length (a run longer than 5 s has seen the connection fail by its end, and waits nothing).
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const parts = process.argv.slice(2).filter((arg) => ['push', 'reads', 'unreachable'].includes(arg));
  console.log(await remoteSection(parts.length > 0 ? parts : undefined));
}
