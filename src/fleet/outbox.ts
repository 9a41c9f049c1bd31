import { AGENT_DIR, isRunId } from '../project/index.js';
import type { RunId } from '../project/index.js';
import type { Project } from '../store/index.js';

/** `.agent/outbox/`: one file per run whose records are not all in the remote yet (spec storage.md, local first). */
export const OUTBOX_DIR = `${AGENT_DIR}/outbox`;

/** The outbox entry of one run. */
export function outboxEntry(runId: RunId): string {
  return `${OUTBOX_DIR}/${runId}`;
}

/** Marks the run pending (durably: a kill before its push leaves it marked), saying since when. */
export async function markPending(project: Project, runId: RunId, now: Date = new Date()): Promise<void> {
  await project.store.replace(
    outboxEntry(runId),
    `${JSON.stringify({ run_id: runId, since: now.toISOString() })}\n`,
  );
}

/** The run is all in the remote: its outbox entry goes. */
export async function clearPending(project: Project, runId: RunId): Promise<void> {
  await project.store.remove(outboxEntry(runId));
}

/** The runs the outbox holds, by id. */
export async function listPending(project: Project): Promise<RunId[]> {
  const entries = await project.store.list(OUTBOX_DIR);
  return entries
    .filter((entry) => entry.kind === 'file')
    .map((entry) => entry.name)
    .filter(isRunId)
    .sort();
}
