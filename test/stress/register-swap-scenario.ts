/**
 * A symlink swapper during registration: while one MCP server registers `notes/f<i>.txt` (one path per
 * `register_artefacts` call, each a first registration in its run), another process flips `notes/` between the
 * real folder and a symlink to an outside folder holding files of the same names and other bytes. A record
 * whose content hash is an outside file's read through the link ("outside bytes").
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child-process.js';
import { judgeCallOutcome } from './count-document-problems.js';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import { countOutsideBytes, readProjectRecords } from './count-workflow-problems.js';
import { startFolderSwapper } from './folder-swapper.js';
import { startMcpServer } from './mcp-stdio-client.js';
import type { CallOutcome } from './mcp-stdio-client.js';
import { zero } from './stress-counts.js';
import type { Counts } from './stress-counts.js';
import {
  createProject,
  INGEST_ON,
  STRESS_PARTS,
  STRESS_WORKFLOW,
  tempRoot,
  uniqueText,
} from './stress-project.js';

/**
 * How long, on average, `notes/` stays a folder, then a link (ms): about the time between a registration's
 * walk and its open, so that it often sees the folder on the walk and the link when it opens the file.
 */
const SWAP_DWELL_MS = 0.1;

/** Counts a crash or a hang; true when the server answered (a refusal included). */
function answered(counts: Counts, outcome: CallOutcome): boolean {
  const verdict = judgeCallOutcome(outcome.kind);
  if (verdict === 'crash') counts.crashes += 1;
  if (verdict === 'hang') counts.hangs += 1;
  return verdict === 'ok';
}

/** The swap scenario: `rounds` runs, each registering `perRound` files while the swapper runs. */
export async function registrationSwap(rounds: number, perRound = 25): Promise<Counts> {
  const counts = zero(['escapes', 'unreadable', 'drift', 'outsideBytes', 'crashes', 'hangs']);
  const root = await tempRoot('register-swap');
  const projectDir = path.join(root, 'project');
  const outside = path.join(root, 'outside');
  const notes = path.join(projectDir, 'notes');
  await createProject(projectDir, { stress: STRESS_WORKFLOW });
  await mkdir(notes);
  await mkdir(outside);
  const outsideHashes = new Set<string>();
  for (let index = 1; index <= perRound; index += 1) {
    const name = `f${String(index)}.txt`;
    await writeFile(path.join(notes, name), uniqueText(512, `inside ${name}`));
    const foreign = uniqueText(512, `outside ${name}`);
    await writeFile(path.join(outside, name), foreign);
    outsideHashes.add(sha256Of(foreign));
  }
  const stopFile = path.join(root, 'stop');
  const before = await snapshotTree(root);
  const started = performance.now();
  const server = startMcpServer(projectDir, { env: INGEST_ON });
  const swapper = startFolderSwapper(notes, outside, stopFile, { dwellMs: SWAP_DWELL_MS });
  let registered = 0;
  if (answered(counts, await server.initialize())) {
    for (let round = 1; round <= rounds; round += 1) {
      const runId = `swap-${String(round)}`;
      const start = await server.call('workflow_start', {
        workflow: 'stress',
        inputs: { parts: [...STRESS_PARTS] },
        run_id: runId,
      });
      if (!answered(counts, start)) break;
      for (let index = 1; index <= perRound; index += 1) {
        const outcome = await server.call('register_artefacts', {
          run_id: runId,
          paths: [`notes/f${String(index)}.txt`],
        });
        if (!answered(counts, outcome)) break;
        const done = outcome.kind === 'result' ? outcome.value.registered : undefined;
        if (Array.isArray(done)) registered += done.length;
        counts.trials += 1;
      }
    }
  }
  await writeFile(stopFile, 'stop');
  const swaps = await swapper;
  await server.close();
  counts.outsideBytes = countOutsideBytes(await readProjectRecords(projectDir), outsideHashes);
  counts.escapes = findEscapes(before, await snapshotTree(root), ['project', 'stop']).length;
  counts.unreadable = await countUnreadableRecordLines(projectDir);
  const verify = await runCli(['verify', '--project', projectDir, '--json']);
  if (verify.capped) counts.hangs += 1;
  counts.drift = countDrift(verify.stdout);
  counts.detail = `${String(counts.trials)} registrations (${String(registered)} registered), ${String(swaps)} swaps`;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}
