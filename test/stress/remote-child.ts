/**
 * A child of the remote's stress rows (remote-scenarios.ts), killed at random moments:
 * - `push <projectDir>`: pushes every run of the project with `pushRuns` to the remote of ARTIFACT_INGEST_STRESS_REMOTE;
 * - `run <projectDir> <runId> <nodes>`: a chain graph run (replay agent, ingest on) with that remote, pushed in the
 *   background as a run with a remote is.
 * The remote's settings come as JSON in the environment (no password in them: the test server trusts 127.0.0.1).
 */
import path from 'node:path';
import { pushRuns } from '../../src/fleet/index.js';
import { parseRunId } from '../../src/project/index.js';
import { openRemoteStore } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { createReplayAgent, runGraph } from '../../src/runtime/index.js';
import { openProject } from '../../src/store/index.js';
import { graphOf } from '../bench/graph-runs.js';

const settings = JSON.parse(process.env['ARTIFACT_INGEST_STRESS_REMOTE'] ?? '{}') as RemoteStoreSettings;
const [mode, projectDir = '', runId = 'run', nodes = '20'] = process.argv.slice(2);

if (mode === 'push') {
  const local = openProject(projectDir);
  const store = await openRemoteStore(settings);
  try {
    const report = await pushRuns(local, openProject(projectDir, { store }), { all: true });
    process.stdout.write(`${JSON.stringify({ pushed: report.pushed.length, failed: report.failed })}\n`);
  } finally {
    await store.close();
  }
} else if (mode === 'run') {
  const agent = createReplayAgent('replay', { kind: 'replay', dir: path.join(projectDir, 'replies') });
  const result = await runGraph({
    projectDir,
    graph: graphOf('chain', Number(nodes)),
    inputs: { goal: 'stress' },
    agentFor: () => agent,
    runId: parseRunId(runId),
    ingest: { enabled: true },
    remote: settings,
  });
  process.stdout.write(`${JSON.stringify({ status: result.status })}\n`);
} else {
  process.stderr.write('usage: remote-child.ts push <projectDir> | run <projectDir> <runId> <nodes>\n');
  process.exitCode = 2;
}
