import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { copyRun } from '../../src/artifacts/bundle/index.js';
import { replayRun } from '../../src/artifacts/lineage/index.js';
import { loadProjectConfig, resolveRemoteSettings } from '../../src/config/index.js';
import { listPending, outboxEntry, pushRuns } from '../../src/fleet/index.js';
import { parseRunId, PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { openRemoteStore } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { listRuns } from '../../src/runtime/index.js';
import { openProject } from '../../src/store/index.js';
import type { Project, ProjectStore } from '../../src/store/index.js';
import { commitMessage } from '../helpers/contract-project.js';
import { CLI } from '../helpers/run-cli.js';
import { startS3Server } from '../helpers/s3-server.js';
import type { S3Server } from '../helpers/s3-server.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { freshCatalog, withS3Credentials } from '../remote/remote-test-stores.js';
import { callTool as call } from './mcp-test-client.js';

// Local first through the MCP server (spec storage.md Part 2): the built `artifact-ingest mcp`, as an assistant starts
// it, in a project whose artifact-ingest.config.yaml names a remote. Every tool that writes a run pushes it (start,
// submit_artifact, each advance); when the run is done it is all in the remote and out of the outbox. A remote that
// does not answer fails no tool call: the outbox keeps the run for a later push.

const WORKFLOW = `name: two
version: "1"
steps:
  - id: write
    instructions: "Write it."
  - id: review
    instructions: "Review it."
`;

const RUN_ID = parseRunId('mcp-push-1');

const clients: Client[] = [];
const stores: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(stores.splice(0).map((store) => store.close()));
});

/** How the config names the objects, and the environment the server needs for them. */
interface ObjectsChoice {
  readonly yaml: () => string[];
  readonly env: () => Record<string, string>;
}

/** A project with the two-step workflow, ingest on and `remote:` naming `catalog` and the objects of `objects`. */
async function remoteProject(catalog: string, namespace: string, objects: ObjectsChoice): Promise<string> {
  const config = [
    'ingest:',
    '  enabled: true',
    'remote:',
    `  project: ${namespace}`,
    `  catalog: ${catalog}`,
    ...objects.yaml(),
    '',
  ].join('\n');
  return tempProject({ [PROJECT_CONFIG_FILE]: config, 'workflows/two.yaml': WORKFLOW });
}

/** The built `artifact-ingest mcp --project dir` as a child process, with an SDK client on its stdio. */
async function spawnServer(projectDir: string, env: Record<string, string>): Promise<Client> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith('ARTIFACT_INGEST'),
    ),
  );
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--project', projectDir],
    stderr: 'pipe',
    env: { ...inherited, ARTIFACT_INGEST_HOST: 'mcp-machine', ...env },
  });
  const client = new Client({ name: 'remote-push-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** The remote the project's config names, opened as every fleet read opens it. */
async function configuredRemote(projectDir: string): Promise<Project> {
  const settings = resolveRemoteSettings(await loadProjectConfig(projectDir), {});
  if (settings === undefined) throw new Error(`${projectDir} configures no remote`);
  return remoteOf(projectDir, settings);
}

async function remoteOf(projectDir: string, settings: RemoteStoreSettings): Promise<Project> {
  const store = await openRemoteStore(settings);
  stores.push(store);
  return openProject(projectDir, { store });
}

/** The distinct content hashes the run's records name, as this machine recorded them. */
async function recordedHashes(local: Project): Promise<string[]> {
  const text = (await local.store.readText(`.agent/runs/${RUN_ID}/artifacts.jsonl`)) ?? '';
  const hashes = text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { contentHash?: unknown }).contentHash)
    .filter((hash): hash is string => typeof hash === 'string');
  return [...new Set(hashes)];
}

/** Drives the run through every tool that writes it: start, register, submit, two advances (the last completes it). */
async function driveRun(client: Client, projectDir: string, afterStart: () => Promise<void>): Promise<void> {
  await call(client, 'workflow_start', { workflow: 'two', run_id: RUN_ID });
  await afterStart();
  await writeFile(path.join(projectDir, 'notes.md'), '# notes\n');
  const registered = await call(client, 'register_artefacts', { paths: ['notes.md'] });
  expect(registered['invalid']).toEqual([]);
  await call(client, 'submit_artifact', {
    type: 'commit_message',
    payload: commitMessage('pushed over MCP'),
  });
  await call(client, 'workflow_advance', {
    output: ['Here it is.', '', fileBlock('ts', 'src/x.ts', 'export const x = 1;')].join('\n'),
  });
  const done = await call(client, 'workflow_advance', { output: 'Looks right.' });
  expect(done['status']).toBe('complete');
}

const OBJECTS: readonly (readonly [string, (s3: () => S3Server) => ObjectsChoice])[] = [
  ['catalog', () => ({ yaml: () => ['  objects: catalog'], env: () => ({}) })],
  [
    's3 (s3rver)',
    (s3) => ({
      yaml: () => [
        '  objects: s3://mcp-push/objects',
        '  s3:',
        `    endpoint: ${s3().endpoint}`,
        `    region: ${s3().region}`,
        '    force_path_style: true',
      ],
      env: () => ({
        AWS_ACCESS_KEY_ID: s3().credentials.accessKeyId,
        AWS_SECRET_ACCESS_KEY: s3().credentials.secretAccessKey,
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      }),
    }),
  ],
];

describeWithPostgres('the MCP server with a remote configured', (postgres) => {
  let s3: S3Server | undefined;
  const s3Server = (): S3Server => {
    if (s3 === undefined) throw new Error('s3rver did not start');
    return s3;
  };
  beforeAll(async () => {
    s3 = await startS3Server();
    withS3Credentials(s3);
    await s3.createBucket('mcp-push');
  });
  afterAll(async () => {
    await s3?.stop();
  });

  describe.each(OBJECTS)('objects in %s', (_kind, choose) => {
    it('pushes the run at its start and at each write: the remote holds it all, the outbox is cleared', async () => {
      const objects = choose(s3Server);
      const catalog = await freshCatalog(postgres);
      const projectDir = await remoteProject(catalog, 'mcp/push', objects);
      const client = await spawnServer(projectDir, objects.env());
      const local = openProject(projectDir);
      const remote = await configuredRemote(projectDir);
      const stateKey = `.agent/runs/${RUN_ID}/state.json`;

      await driveRun(client, projectDir, async () => {
        // The start alone is in the remote: a run started and not yet advanced is visible to the fleet.
        expect(JSON.parse((await remote.store.readText(stateKey)) ?? '{}')).toMatchObject({
          run_id: RUN_ID,
          status: 'running',
          step: 'write',
        });
        expect(await listPending(local)).toEqual([]);
      });

      expect(await listPending(local)).toEqual([]);
      expect(await local.store.info(outboxEntry(RUN_ID))).toBeUndefined();
      expect((await listRuns(remote)).map((run) => [run.run_id, run.host])).toEqual([
        [RUN_ID, 'mcp-machine'],
      ]);
      for (const key of [
        stateKey,
        `.agent/runs/${RUN_ID}/events.jsonl`,
        `.agent/runs/${RUN_ID}/artifacts.jsonl`,
        `.agent/artifacts/${RUN_ID}/commit_message.json`,
      ]) {
        const here = await local.store.readText(key);
        expect(here, key).toBeDefined();
        expect(await remote.store.readText(key), key).toBe(here);
      }
      expect(JSON.parse((await remote.store.readText(stateKey)) ?? '{}')).toMatchObject({
        status: 'complete',
      });
      expect(await replayRun(remote, RUN_ID)).toEqual(await replayRun(local, RUN_ID));
      // Every content the run's records name is in the remote's objects, its bytes re-hashed there (the registered
      // file, the step documents, src/x.ts). Not verifyArtifacts: its first listing asks s3rver for a truncated page,
      // whose continuation token s3rver 3.7.1 makes with DES, which Node's OpenSSL 3 no longer has (a 500).
      const hashes = await recordedHashes(local);
      expect(hashes.length).toBeGreaterThanOrEqual(3);
      const objectStore = await remote.store.openObjects();
      try {
        for (const hash of hashes) expect(await objectStore.verify(hash), hash).toBe('ok');
      } finally {
        await objectStore.close();
      }
      // Nothing of the run is missing there: one more push copies nothing.
      expect(await copyRun(local, remote, RUN_ID, { direction: 'push' })).toMatchObject({
        recordsCopied: 0,
        objectsStored: 0,
        filesWritten: 0,
      });
      await local.store.close();
    });
  });

  it('answers every tool call with the remote down, keeps the run in the outbox, and a later push empties it', async () => {
    const catalog = await freshCatalog(postgres);
    const down = new URL(catalog);
    down.port = String(await closedPort());
    const objects = { yaml: () => ['  objects: catalog'], env: () => ({}) };
    const projectDir = await remoteProject(down.toString(), 'mcp/down', objects);
    const client = await spawnServer(projectDir, {});
    await driveRun(client, projectDir, () => Promise.resolve());

    const local = openProject(projectDir);
    expect(await listPending(local)).toEqual([RUN_ID]);
    const warnings = (await readEvents(projectDir, RUN_ID)).filter(
      (event) => event['event'] === 'remote.push_failed',
    );
    // One per tool call that pushed: the start, the submission and the two advances.
    expect(warnings).toHaveLength(4);

    const settings = resolveRemoteSettings(await loadProjectConfig(projectDir), {
      ARTIFACT_INGEST_REMOTE_CATALOG: catalog,
    });
    if (settings === undefined) throw new Error('no remote');
    const remote = await remoteOf(projectDir, settings);
    const report = await pushRuns(local, remote);
    expect(report.failed).toEqual([]);
    expect(report.pushed.map((copy) => copy.runId)).toEqual([RUN_ID]);
    expect(report.pending).toEqual([]);
    expect(await listPending(local)).toEqual([]);
    expect(await remote.store.readText(`.agent/runs/${RUN_ID}/events.jsonl`)).toBe(
      await local.store.readText(`.agent/runs/${RUN_ID}/events.jsonl`),
    );
    await local.store.close();
  });
});
