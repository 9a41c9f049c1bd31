import { afterEach, expect, it } from 'vitest';
import { listPending } from '../../src/fleet/index.js';
import { openProject } from '../../src/store/index.js';
import type { ProjectStore } from '../../src/store/index.js';
import { commitMessage } from '../helpers/contract-project.js';
import { runCli } from '../helpers/run-cli.js';
import { closedPort } from '../helpers/stub-http-server.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { catalogSettings, freshCatalog, remoteStoreOf } from '../remote/remote-test-stores.js';

// Local first for the workflow engine (spec storage.md Part 2): each `workflow start` and `workflow advance` (the
// functions the MCP tools call too) and each `submit` pushes the run to a configured remote, fail-open.

const PASSWORD = 'Zq-unseen-wf-4410';
const opened: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

function remoteEnv(catalog: string, project: string): Record<string, string> {
  return {
    ARTIFACT_INGEST: '',
    ARTIFACT_INGEST_REMOTE_CATALOG: catalog,
    ARTIFACT_INGEST_REMOTE_OBJECTS: 'catalog',
    ARTIFACT_INGEST_REMOTE_PROJECT: project,
  };
}

async function startFeatureDev(dir: string, runId: string, env: Record<string, string>): Promise<void> {
  const started = await runCli(
    ['workflow', 'start', 'feature-dev', '--input', 'feature=login', '--run-id', runId, '--project', dir],
    { env },
  );
  expect(started.code, started.stderr).toBe(0);
}

describeWithPostgres('a workflow run with a remote', (postgres) => {
  it('pushes the run when it starts: the remote holds its first state and events, the outbox is empty', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await tempProject();
    await startFeatureDev(dir, 'wf-0', remoteEnv(catalog, 'wf/start'));
    const local = openProject(dir);
    expect(await listPending(local)).toEqual([]);
    const store = remoteStoreOf(catalogSettings(catalog, 'wf/start'));
    opened.push(store);
    const stateKey = '.agent/runs/wf-0/state.json';
    expect(JSON.parse((await store.readText(stateKey)) ?? '{}')).toMatchObject({
      run_id: 'wf-0',
      status: 'running',
      step: 'scope',
      revision: 0,
    });
    expect(await store.readText(stateKey)).toBe(await local.store.readText(stateKey));
    const events = (await store.readText('.agent/runs/wf-0/events.jsonl')) ?? '';
    expect(events).toBe(await local.store.readText('.agent/runs/wf-0/events.jsonl'));
    expect(events).toContain('workflow.started');
  });

  it('starts with the remote down: exit 0, the run in the outbox with one warning', async () => {
    const catalog = await freshCatalog(postgres);
    const down = new URL(catalog);
    down.port = String(await closedPort());
    const dir = await tempProject();
    await startFeatureDev(dir, 'wf-00', remoteEnv(down.toString(), 'wf/start-down'));
    expect(await listPending(openProject(dir))).toEqual(['wf-00']);
    const warnings = (await readEvents(dir, 'wf-00')).filter(
      (event) => event['event'] === 'remote.push_failed',
    );
    expect(warnings).toHaveLength(1);
  });

  it('pushes the run at each step end: the remote holds the advanced state, the outbox is empty', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await tempProject();
    const env = remoteEnv(catalog, 'wf/up');
    await startFeatureDev(dir, 'wf-1', env);
    const advanced = await runCli(['workflow', 'advance', '--output', 'the scope', '--project', dir], {
      env,
    });
    expect(advanced.code, advanced.stderr).toBe(0);
    const local = openProject(dir);
    expect(await listPending(local)).toEqual([]);
    const store = remoteStoreOf(catalogSettings(catalog, 'wf/up'));
    opened.push(store);
    const stateKey = '.agent/runs/wf-1/state.json';
    expect(await store.readText(stateKey)).toBe(await local.store.readText(stateKey));
    expect(await store.readText('.agent/runs/wf-1/events.jsonl')).toBe(
      await local.store.readText('.agent/runs/wf-1/events.jsonl'),
    );
    expect(JSON.parse((await store.readText(stateKey)) ?? '{}')).toMatchObject({ step: 'plan' });
  });

  it('advances with the remote down, keeps the run in the outbox with a warning, and push sends it', async () => {
    const catalog = await freshCatalog(postgres);
    const down = new URL(catalog);
    down.port = String(await closedPort());
    down.password = PASSWORD;
    const dir = await tempProject();
    const downEnv = remoteEnv(down.toString(), 'wf/down');
    await startFeatureDev(dir, 'wf-2', downEnv);
    const advanced = await runCli(['workflow', 'advance', '--output', 'the scope', '--project', dir], {
      env: downEnv,
    });
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.stdout + advanced.stderr).not.toContain(PASSWORD);
    expect(await listPending(openProject(dir))).toEqual(['wf-2']);
    const warnings = (await readEvents(dir, 'wf-2')).filter(
      (event) => event['event'] === 'remote.push_failed',
    );
    // One per push that failed: the start's and the advance's.
    expect(warnings).toHaveLength(2);
    expect(JSON.stringify(warnings)).not.toContain(PASSWORD);

    const pushed = await runCli(['push', '--project', dir], { env: remoteEnv(catalog, 'wf/down') });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(await listPending(openProject(dir))).toEqual([]);
  });

  it('submit pushes the run it submitted to', async () => {
    const catalog = await freshCatalog(postgres);
    const dir = await tempProject();
    const env = remoteEnv(catalog, 'wf/submit');
    await startFeatureDev(dir, 'wf-3', env);
    const payload = JSON.stringify(commitMessage('pushed with the run'));
    const submitted = await runCli(['submit', 'commit_message', '-', '--run-id', 'wf-3', '--project', dir], {
      env,
      stdin: payload,
    });
    expect(submitted.code, submitted.stderr).toBe(0);
    const store = remoteStoreOf(catalogSettings(catalog, 'wf/submit'));
    opened.push(store);
    const local = openProject(dir);
    expect(await store.readText('.agent/runs/wf-3/events.jsonl')).toBe(
      await local.store.readText('.agent/runs/wf-3/events.jsonl'),
    );
    expect(await store.readText('.agent/runs/wf-3/events.jsonl')).toContain('artifact.submitted');
    expect(await listPending(local)).toEqual([]);
  });
});
