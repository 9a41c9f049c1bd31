import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { replayRun } from '../../src/artifacts/lineage/index.js';
import { listPending, pushRuns } from '../../src/fleet/index.js';
import { parseNodeId } from '../../src/project/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import type { GraphDefinition } from '../../src/runtime/index.js';
import { openProject } from '../../src/store/index.js';
import type { ProjectStore } from '../../src/store/index.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';
import { catalogSettings, freshCatalog, remoteStoreOf } from '../remote/remote-test-stores.js';

// Local first (spec storage.md Part 2): a graph run with a remote writes .agent/ as always and pushes what it kept
// in the background; a remote that is down never fails the run, and the outbox keeps the run for `push`.

const opened: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function chain(nodes: number): GraphDefinition {
  const graphNodes = Array.from({ length: nodes }, (_, index) => ({
    id: parseNodeId(`n${String(index + 1)}`),
    type: 'agent_task' as const,
    agent: 'replay',
    prompt: `part ${String(index + 1)}`,
    outputPath: `docs/n${String(index + 1)}.md`,
    dependsOn: index === 0 ? [] : [parseNodeId(`n${String(index)}`)],
  }));
  return {
    name: 'chain',
    version: '1',
    description: 'chain',
    inputs: [],
    mode: 'team',
    nodes: graphNodes,
    hash: createHash('sha256').update(JSON.stringify(graphNodes)).digest('hex'),
    source: 'test:chain',
  };
}

async function runChain(projectDir: string, remote: ReturnType<typeof catalogSettings>, runId: string) {
  const replies = path.join(projectDir, 'replies');
  await mkdir(replies, { recursive: true });
  for (let i = 1; i <= 3; i++) {
    await writeFile(
      path.join(replies, `n${String(i)}.md`),
      `# Part ${String(i)}\n\n\`\`\`ts file=src/n${String(i)}.ts\nexport const n${String(i)} = ${String(i)};\n\`\`\`\n`,
    );
  }
  const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
  return runGraph({
    projectDir,
    graph: chain(3),
    inputs: {},
    agentFor: () => agent,
    runId,
    ingest: { enabled: true, durability: 'none' },
    remote,
  });
}

/** A port on 127.0.0.1 where nothing listens (a remote that is down). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) =>
    server.close(() => {
      resolve();
    }),
  );
  return typeof address === 'object' && address !== null ? address.port : 1;
}

describeWithPostgres('a graph run with a remote', (postgres) => {
  it('pushes the run as it goes: the remote answers as the machine does, and the outbox is empty', async () => {
    const catalog = await freshCatalog(postgres);
    const settings = catalogSettings(catalog);
    const dir = await tempProject();
    const result = await runChain(dir, settings, 'pushed-1');
    expect(result.status).toBe('completed');
    const local = openProject(dir);
    const remoteStore = remoteStoreOf(settings);
    opened.push(remoteStore);
    const remote = openProject(dir, { store: remoteStore });
    expect(await replayRun(remote, 'pushed-1')).toEqual(await replayRun(local, 'pushed-1'));
    expect(await remoteStore.readText('.agent/runs/pushed-1/state.json')).toBe(
      await local.store.readText('.agent/runs/pushed-1/state.json'),
    );
    expect(await listPending(local)).toEqual([]);
    await local.store.close();
  });

  it('completes with the remote down, keeps the run in the outbox, and push sends it later', async () => {
    const catalog = await freshCatalog(postgres);
    const down = new URL(catalog);
    down.port = String(await closedPort());
    down.password = 's3cret-pw';
    const dir = await tempProject();
    const started = performance.now();
    const result = await runChain(dir, catalogSettings(down.toString(), 'team/a'), 'offline-1');
    expect(result.status).toBe('completed');
    expect(performance.now() - started).toBeLessThan(60_000);
    const local = openProject(dir);
    expect(await listPending(local)).toEqual(['offline-1']);
    const warnings = (await readEvents(dir, 'offline-1')).filter(
      (event) => event['event'] === 'remote.push_failed',
    );
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain('s3cret-pw');

    const remoteStore = remoteStoreOf(catalogSettings(catalog, 'team/a'));
    opened.push(remoteStore);
    const remote = openProject(dir, { store: remoteStore });
    const report = await pushRuns(local, remote);
    expect(report.failed).toEqual([]);
    expect(report.pushed.map((copy) => copy.runId)).toEqual(['offline-1']);
    expect(report.pending).toEqual([]);
    expect(await replayRun(remote, 'offline-1')).toEqual(await replayRun(local, 'offline-1'));
    // Pushed again: nothing new, nothing twice.
    const again = await pushRuns(local, remote, { all: true });
    expect(again.pushed[0]).toMatchObject({ recordsCopied: 0, objectsStored: 0, bytesWritten: 0 });
    await local.store.close();
  });
});
