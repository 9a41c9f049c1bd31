import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { copyRun } from '../../src/artifacts/bundle/index.js';
import { checkoutWorkspace, logPath, replayRun, verifyArtifacts } from '../../src/artifacts/lineage/index.js';
import { listPending } from '../../src/fleet/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { readRunReport } from '../../src/report/index.js';
import { createReplayAgent, listRuns, runGraph } from '../../src/runtime/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import type { GraphDefinition } from '../../src/runtime/index.js';
import { openProject } from '../../src/store/index.js';
import type { Project, ProjectStore } from '../../src/store/index.js';
import { startS3Server } from '../helpers/s3-server.js';
import type { S3Server } from '../helpers/s3-server.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';
import {
  catalogSettings,
  freshCatalog,
  remoteStoreOf,
  s3Settings,
  withS3Credentials,
} from '../remote/remote-test-stores.js';

// The fleet (issue 26, "Done when"): three project folders stand for three machines. Two run graphs at once and
// push to one namespace; the third never ran anything and has no .agent/. Every fleet read from the third
// answers as the machine that ran the run does, and another namespace of the same catalog sees none of it.

const opened: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function chain(name: string, nodes: number): GraphDefinition {
  const graphNodes = Array.from({ length: nodes }, (_, index) => ({
    id: parseNodeId(`n${String(index + 1)}`),
    type: 'agent_task' as const,
    agent: 'replay',
    prompt: `part ${String(index + 1)}`,
    outputPath: `docs/${name}-n${String(index + 1)}.md`,
    dependsOn: index === 0 ? [] : [parseNodeId(`n${String(index)}`)],
  }));
  return {
    name,
    version: '1',
    description: name,
    inputs: [],
    mode: 'team',
    nodes: graphNodes,
    hash: createHash('sha256').update(JSON.stringify(graphNodes)).digest('hex'),
    source: `test:${name}`,
  };
}

/** Machine `name` runs a 4-node chain whose nodes write shared.ts and a file of their own, pushing as it goes. */
async function machineRuns(name: string, remote: RemoteStoreSettings): Promise<Project> {
  const dir = await tempProject();
  const replies = path.join(dir, 'replies');
  await mkdir(replies, { recursive: true });
  for (let i = 1; i <= 4; i++) {
    await writeFile(
      path.join(replies, `n${String(i)}.md`),
      [
        `# ${name} part ${String(i)}`,
        '',
        `\`\`\`ts file=src/${name}-${String(i)}.ts`,
        `export const part = ${String(i)};`,
        '```',
        '',
        '```ts file=src/shared.ts',
        `export const lastWriter = '${name} ${String(i)}';`,
        '```',
        '',
      ].join('\n'),
    );
  }
  const agent = createReplayAgent('replay', { kind: 'replay', dir: replies });
  const result = await runGraph({
    projectDir: dir,
    graph: chain(name, 4),
    inputs: {},
    agentFor: () => agent,
    runId: `${name}-run`,
    ingest: { enabled: true, durability: 'none' },
    remote,
    env: { ARTIFACT_INGEST_HOST: `host-${name}` },
  });
  expect(result.status).toBe('completed');
  return openProject(dir);
}

describeWithPostgres('three machines, one lineage', (postgres) => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket('fleet');
    withS3Credentials(s3);
  });
  afterAll(async () => {
    await s3.stop();
  });

  /** The team's remote in a fresh catalog, contents in the catalog or in the S3 server's bucket. */
  const remoteOf = async (objects: 'catalog' | 's3'): Promise<RemoteStoreSettings> => {
    const catalog = await freshCatalog(postgres);
    return objects === 'catalog'
      ? catalogSettings(catalog, 'acme/web')
      : { ...s3Settings(catalog, s3, 'fleet'), project: 'acme/web' };
  };
  /** Another team's namespace in the same catalog (with S3, under a prefix of its own, as docs/remote.md says). */
  const otherOf = (settings: RemoteStoreSettings): RemoteStoreSettings =>
    settings.objects.kind === 'catalog'
      ? { ...settings, project: 'acme/other' }
      : { ...settings, project: 'acme/other', objects: { ...settings.objects, prefix: 'acme-other' } };

  it.each(['catalog', 's3'] as const)(
    'answers runs, log, replay, checkout, verify and report from the remote as the machines that ran them (objects in %s)',
    async (objects) => {
      const settings = await remoteOf(objects);
      const [a, b] = await Promise.all([machineRuns('alpha', settings), machineRuns('beta', settings)]);
      expect(await listPending(a)).toEqual([]);
      expect(await listPending(b)).toEqual([]);

      // The third machine: a folder with nothing in it, reading the remote.
      const third = await tempProject();
      const remoteStore = remoteStoreOf(settings);
      opened.push(remoteStore);
      const fleet = openProject(third, { store: remoteStore });

      const runs = await listRuns(fleet);
      expect(runs.map((run) => [run.run_id, run.host]).sort()).toEqual([
        ['alpha-run', 'host-alpha'],
        ['beta-run', 'host-beta'],
      ]);
      // Ordered by creation time, as on one machine; `interrupted` is judged from a lock no reader here can see.
      const here = [...(await listRuns(a)), ...(await listRuns(b))].sort(
        (x, y) => x.created_at.localeCompare(y.created_at) || x.run_id.localeCompare(y.run_id),
      );
      expect(runs).toEqual(here);

      for (const [machine, runId] of [
        [a, parseRunId('alpha-run')],
        [b, parseRunId('beta-run')],
      ] as const) {
        expect(await replayRun(fleet, runId)).toEqual(await replayRun(machine, runId));
        // The report's verify compares the live workspace only where the run ran: the fleet checks records and contents.
        const { verify: fleetVerify, ...fleetReport } = await readRunReport(fleet, runId);
        const { verify: machineVerify, ...machineReport } = await readRunReport(machine, runId);
        expect(fleetReport).toEqual(machineReport);
        expect(fleetVerify).toMatchObject({
          ok: true,
          objects: machineVerify?.objects,
          workspaceFiles: { checked: 0 },
        });
        const verified = await verifyArtifacts(fleet, { runId });
        expect(verified.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
      }
      expect(await logPath(fleet, 'workspace/src/alpha-2.ts')).toEqual(
        await logPath(a, 'workspace/src/alpha-2.ts'),
      );

      // shared.ts was written by both machines: the fleet's log holds both runs' versions, in time order.
      const shared = await logPath(fleet, 'workspace/src/shared.ts');
      expect(shared.versions).toHaveLength(8);
      expect(new Set(shared.versions.map((version) => version.runId))).toEqual(
        new Set(['alpha-run', 'beta-run']),
      );

      // A checkout over the namespace's lineage is a local checkout of a project holding both runs.
      const both = openProject(await tempProject());
      for (const [machine, runId] of [
        [a, parseRunId('alpha-run')],
        [b, parseRunId('beta-run')],
      ] as const) {
        await copyRun(machine, both, runId, { direction: 'push' });
      }
      const fromFleet = path.join(third, 'out-fleet');
      const fromLocal = path.join(third, 'out-local');
      await checkoutWorkspace(fleet, { to: fromFleet, runId: 'alpha-run', step: 2 });
      await checkoutWorkspace(both, { to: fromLocal, runId: 'alpha-run', step: 2 });
      expect(await treeDigest(fromFleet)).toBe(await treeDigest(fromLocal));

      // Another namespace of the same catalog sees none of it: no run, no version, no record, no object.
      const otherStore = remoteStoreOf(otherOf(settings));
      opened.push(otherStore);
      const other = openProject(third, { store: otherStore });
      expect(await listRuns(other)).toEqual([]);
      expect((await logPath(other, 'workspace/src/shared.ts')).versions).toEqual([]);
      await expect(replayRun(other, 'alpha-run')).rejects.toMatchObject({ code: 'unknown_run' });
      expect(await otherStore.list('.agent')).toEqual([]);
      await Promise.all([a.store.close(), b.store.close(), both.store.close()]);
    },
  );
});
