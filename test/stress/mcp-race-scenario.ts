/**
 * Two MCP servers racing: two `artifact-ingest mcp` processes on one project send `workflow_advance` for the
 * same run at the same moment, round after round; every output carries a token, so an advance acknowledged to
 * its client can be looked for in state.json and events.jsonl afterwards.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { runCli } from './child-process.js';
import { judgeCallOutcome } from './count-document-problems.js';
import { countDrift, countUnreadableRecordLines } from './count-problems.js';
import { countDuplicatePasses, countLostUpdates } from './count-workflow-problems.js';
import { startMcpServer } from './mcp-stdio-client.js';
import type { McpServerProcess } from './mcp-stdio-client.js';
import { zero } from './stress-counts.js';
import type { Counts } from './stress-counts.js';
import {
  createProject,
  fence,
  INGEST_ON,
  RACE_WORKFLOW,
  readRunEvents,
  readRunState,
  tempRoot,
} from './stress-project.js';

const RUN_ID = 'race';

/** A server that answered `initialize`, or undefined (its crash or hang counted). */
async function readyServer(projectDir: string, counts: Counts): Promise<McpServerProcess | undefined> {
  const server = startMcpServer(projectDir, { env: INGEST_ON });
  const outcome = await server.initialize();
  const verdict = judgeCallOutcome(outcome.kind);
  if (verdict === 'ok') return server;
  if (verdict === 'crash') counts.crashes += 1;
  else counts.hangs += 1;
  server.kill();
  await server.exited;
  return undefined;
}

/** The racing scenario: `rounds` rounds of two servers advancing the same run at once. */
export async function mcpRace(rounds: number): Promise<Counts> {
  const counts = zero(['unreadable', 'drift', 'lostUpdates', 'duplicatePasses', 'crashes', 'hangs']);
  const root = await tempRoot('mcp-race');
  const projectDir = path.join(root, 'project');
  await createProject(projectDir, { race: RACE_WORKFLOW });
  const started = performance.now();
  const servers: (McpServerProcess | undefined)[] = [
    await readyServer(projectDir, counts),
    await readyServer(projectDir, counts),
  ];
  // Two passes at most per round: the loop never runs out of items.
  const items = Array.from({ length: rounds * 2 + 1 }, (_, index) => `item ${String(index + 1)}`);
  const start = await servers[0]?.call('workflow_start', {
    workflow: 'race',
    inputs: { items },
    run_id: RUN_ID,
  });
  if (start === undefined || start.kind !== 'result' || start.isError) {
    throw new Error(`the race's workflow_start failed: ${JSON.stringify(start)}`);
  }
  const tokens: string[] = [];
  const acknowledged: string[] = [];
  let refused = 0;
  for (let round = 1; round <= rounds; round += 1) {
    const advances = servers.map(async (server, which) => {
      if (server === undefined) return undefined;
      const token = `race-${String(round)}-${String(which)}-${randomBytes(6).toString('hex')}`;
      tokens.push(token);
      const files = `${fence(`race/r${String(round)}-${String(which)}.txt`, token)}\n${fence('race/shared.txt', token)}`;
      const outcome = await server.call('workflow_advance', {
        run_id: RUN_ID,
        output: `${token}\n\n${files}`,
      });
      return { token, outcome, which };
    });
    for (const advance of await Promise.all(advances)) {
      if (advance === undefined) continue;
      const { token, outcome, which } = advance;
      const verdict = judgeCallOutcome(outcome.kind);
      if (verdict === 'ok' && outcome.kind === 'result') {
        // The loser of a round is refused (state_conflict) and told to retry: not acknowledged.
        if (outcome.isError) refused += 1;
        else acknowledged.push(token);
        continue;
      }
      if (verdict === 'crash') counts.crashes += 1;
      else counts.hangs += 1;
      servers[which]?.kill();
      servers[which] = await readyServer(projectDir, counts);
    }
  }
  for (const server of servers) await server?.close();
  const state = await readRunState(projectDir, RUN_ID);
  const outputs =
    typeof state === 'object' ? (state.outputs as Record<string, unknown> | undefined) : undefined;
  const saved = Array.isArray(outputs?.ground) ? (outputs.ground as unknown[]) : [];
  const events = await readRunEvents(projectDir, RUN_ID);
  counts.lostUpdates = countLostUpdates(acknowledged, saved, 'grind', events);
  counts.duplicatePasses = countDuplicatePasses(tokens, saved, events);
  counts.unreadable = await countUnreadableRecordLines(projectDir);
  const verify = await runCli(['verify', RUN_ID, '--project', projectDir, '--json']);
  if (verify.capped) counts.hangs += 1;
  counts.drift = countDrift(verify.stdout);
  counts.trials = rounds;
  counts.detail = `${String(rounds)} rounds, ${String(acknowledged.length)} of ${String(tokens.length)} advances acknowledged, ${String(refused)} refused`;
  counts.seconds = (performance.now() - started) / 1000;
  await rm(root, { recursive: true, force: true });
  return counts;
}
