/**
 * `npm run stress -- --self-check`: plants one problem of each kind the table counts, in projects the real CLI
 * and MCP server wrote, and counts them with the scenarios' own functions; every count must find its plant.
 */
import { mkdir, readFile, rm, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child-process.js';
import { judgeCallOutcome, judgeCliExit } from './count-document-problems.js';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  findStaleTemps,
  findTornFiles,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import {
  countDuplicatePasses,
  countLostEvents,
  countLostUpdates,
  countMissingSnapshots,
  countOutsideBytes,
  passesOfState,
  readProjectRecords,
} from './count-workflow-problems.js';
import { checkIngested, HOSTILE_RUN_ID, MAX_BLOCKS } from './hostile-document-scenario.js';
import { VALID_BLOCK } from './hostile-documents.js';
import { startMcpServer } from './mcp-stdio-client.js';
import type { McpServerProcess } from './mcp-stdio-client.js';
import { COUNT_COLUMNS, zero } from './stress-counts.js';
import type { Counts } from './stress-counts.js';
import {
  createProject,
  fence,
  INGEST_ON,
  readRunEvents,
  readRunState,
  STRESS_PARTS,
  STRESS_SHAPE,
  STRESS_WORKFLOW,
  tempRoot,
} from './stress-project.js';

/** The writer's plants: a torn file, an escape, a torn events line, a temp file, and drift. */
async function plantWriterProblems(root: string, counts: Counts): Promise<void> {
  const project = path.join(root, 'project');
  await mkdir(path.join(project, 'docs'), { recursive: true });
  await writeFile(path.join(project, 'docs/s.md'), fence('s/a.txt', 'intact') + fence('s/b.txt', 'intact'));
  const before = await snapshotTree(root);
  await runCli(['ingest', 'docs/s.md', '--project', project, '--run-id', 'self']);
  const allowed = new Map([
    ['s/a.txt', new Set([sha256Of('intact\n')])],
    ['s/b.txt', new Set([sha256Of('intact\n')])],
  ]);
  // The torn file is drift too.
  await writeFile(path.join(project, 'workspace/s/a.txt'), 'inta');
  await writeFile(path.join(root, 'escaped.txt'), 'out');
  await writeFile(path.join(project, '.agent/runs/self/events.jsonl'), '{"torn":', { flag: 'a' });
  await writeFile(path.join(project, 'workspace/s/.artifact-ingest-0123456789abcdef.tmp'), '');
  counts.torn = (await findTornFiles(path.join(project, 'workspace'), allowed)).length;
  counts.escapes = findEscapes(before, await snapshotTree(root), [
    'project/workspace',
    'project/.agent',
    'project/docs',
  ]).length;
  counts.unreadable = await countUnreadableRecordLines(project);
  counts.staleTemps = findStaleTemps(await snapshotTree(project)).length;
  counts.drift = countDrift((await runCli(['verify', 'self', '--project', project, '--json'])).stdout);
}

/** Drives {@link STRESS_WORKFLOW} to completion on one server; returns the build passes' tokens. */
async function completeStressRun(
  server: McpServerProcess,
  project: string,
  runId: string,
): Promise<string[]> {
  await server.call('workflow_start', {
    workflow: 'stress',
    inputs: { parts: [...STRESS_PARTS] },
    run_id: runId,
  });
  await mkdir(path.join(project, 'notes'));
  await writeFile(path.join(project, 'notes/n.txt'), 'registered note\n');
  await server.call('register_artefacts', { run_id: runId, paths: ['notes/n.txt'] });
  const tokens: string[] = [];
  for (let pass = 1; pass <= 7; pass += 1) {
    const token = `self-check pass ${String(pass)}`;
    if (pass >= 2 && pass <= 4) tokens.push(token);
    await server.call('workflow_advance', {
      run_id: runId,
      output: `${token}\n\n${fence(`p/${String(pass)}.txt`, token)}`,
    });
  }
  return tokens;
}

/**
 * The MCP plants, in a run a real server completed: a `step.completed` line removed (a lost event), a start
 * snapshot removed, a build output dropped from state.json (a lost update), a `step.completed` line doubled (a
 * duplicate pass), an outside file with a record's bytes, a server that died before answering (a crash) and a
 * call not answered within its cap (a hang).
 */
async function plantWorkflowProblems(root: string, counts: Counts): Promise<void> {
  const project = path.join(root, 'workflow');
  const runId = 'self';
  await createProject(project, { stress: STRESS_WORKFLOW });
  const server = startMcpServer(project, { env: INGEST_ON });
  await server.initialize();
  const tokens = await completeStressRun(server, project, runId);
  // A call that gets no answer within 1 ms: the harness kills the server and counts a hang.
  const capped = await server.call('workflow_status', { run_id: runId }, 1);
  counts.hangs = judgeCallOutcome(capped.kind) === 'hang' ? 1 : 0;
  await server.exited;
  const runDir = path.join(project, '.agent/runs', runId);
  const lines = (await readRunEvents(project, runId)).split('\n').filter((line) => line !== '');
  const completed = lines.filter((line) => line.includes('"event":"step.completed"'));
  // The first pass's step.completed goes; the second one's is written twice.
  const planted = [...lines.filter((line) => line !== completed[0]), completed[1] ?? ''];
  await writeFile(path.join(runDir, 'events.jsonl'), `${planted.join('\n')}\n`);
  await unlink(path.join(runDir, 'snapshots/plan.json'));
  const complete = await readRunState(project, runId);
  if (complete === undefined || complete === 'torn')
    throw new Error('self-check: the run left no state.json');
  // The first build pass's output goes from state.json: an acknowledged advance the state lost.
  const outputs = complete.outputs as Record<string, unknown>;
  const built = Array.isArray(outputs.built) ? (outputs.built as unknown[]) : [];
  await writeFile(
    path.join(runDir, 'state.json'),
    JSON.stringify({ ...complete, outputs: { ...outputs, built: ['dropped', ...built.slice(1)] } }),
  );
  const state = await readRunState(project, runId);
  if (state === undefined || state === 'torn') throw new Error('self-check: state.json did not read back');
  const events = await readRunEvents(project, runId);
  counts.lostEvents = countLostEvents(state, STRESS_SHAPE, events);
  counts.missingSnapshots = await countMissingSnapshots(
    project,
    runId,
    passesOfState(state, STRESS_SHAPE).done,
  );
  const saved = (state.outputs as Record<string, unknown[]>).built ?? [];
  counts.lostUpdates = countLostUpdates(tokens, saved, 'build', events);
  counts.duplicatePasses = countDuplicatePasses(tokens, saved, events);
  const note = await readFile(path.join(project, 'notes/n.txt'));
  counts.outsideBytes = countOutsideBytes(await readProjectRecords(project), new Set([sha256Of(note)]));
  // A server that is gone when the call is sent: the call's outcome is `died`, a crash.
  const dead = startMcpServer(project);
  dead.kill();
  await dead.exited;
  counts.crashes = judgeCallOutcome((await dead.call('workflow_status', {})).kind) === 'crash' ? 1 : 0;
  // And a CLI child ended by a signal (an OOM aborts): a crash too.
  const killed = await runCli(['verify', '--project', project, '--json'], { killAfterMs: 0 });
  counts.crashes += judgeCliExit(killed, [0, 1]) === 'crash' ? 1 : 0;
}

/**
 * The hostile-document plants, after a real ingest of the valid block: one project loses its manifest and its
 * valid file, another gets a manifest of max_blocks + 2 entries and max_blocks + 11 event lines (oversized).
 */
async function plantDocumentProblems(root: string, counts: Counts): Promise<void> {
  for (const name of ['lost', 'oversized']) {
    const project = path.join(root, 'document', name);
    await mkdir(path.join(project, 'docs'), { recursive: true });
    await writeFile(path.join(project, 'docs/hostile.md'), VALID_BLOCK);
    await runCli([
      'ingest',
      'docs/hostile.md',
      '--project',
      project,
      '--run-id',
      HOSTILE_RUN_ID,
      '--node-id',
      'hostile',
    ]);
  }
  const runDir = (name: string): string => path.join(root, 'document', name, '.agent/runs', HOSTILE_RUN_ID);
  await unlink(path.join(runDir('lost'), 'manifests/hostile.json'));
  await writeFile(path.join(root, 'document/lost/workspace/valid.txt'), 'torn');
  const manifestPath = path.join(runDir('oversized'), 'manifests/hostile.json');
  const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as { artifacts: unknown[] };
  const entry = manifest.artifacts[0];
  manifest.artifacts = Array.from({ length: MAX_BLOCKS + 2 }, () => entry);
  await writeFile(manifestPath, JSON.stringify(manifest));
  const line = `${JSON.stringify({ level: 'INFO', event: 'ingest.block', node_id: 'hostile' })}\n`;
  await writeFile(path.join(runDir('oversized'), 'events.jsonl'), line.repeat(MAX_BLOCKS + 11), {
    flag: 'a',
  });
  for (const name of ['lost', 'oversized']) {
    await checkIngested(counts, path.join(root, 'document', name), 'hostile');
  }
}

/** Plants one problem of each kind and counts them: every count of the table must be at least 1. */
export async function selfCheck(): Promise<Counts> {
  const counts = zero(COUNT_COLUMNS.map(([key]) => key));
  const started = performance.now();
  const root = await tempRoot('self-check');
  await plantWriterProblems(root, counts);
  await plantWorkflowProblems(root, counts);
  await plantDocumentProblems(root, counts);
  counts.trials = COUNT_COLUMNS.length;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}
