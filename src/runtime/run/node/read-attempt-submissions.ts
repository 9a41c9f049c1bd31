import { isContractType, readLatestPayload, validateArtifact } from '../../../contracts/index.js';
import type { AttemptSubmission, ContractType } from '../../../contracts/index.js';
import { runEventsPath } from '../../../project/index.js';
import type { RunId } from '../../../project/index.js';
import { projectDirOf, usingProject } from '../../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../../store/index.js';

/** Most bytes of events.jsonl read for one attempt: an agent that logs more than this is not worth waiting on. */
export const MAX_ATTEMPT_EVENT_BYTES = 8 * 1024 * 1024;

/** The size of a run's events.jsonl now (0 when it does not exist yet): where an attempt's events begin. */
export async function eventsOffset(project: ProjectRef, runId: RunId): Promise<number> {
  try {
    return (await usingProject(project, ({ store }) => store.info(runEventsPath(runId))))?.size ?? 0;
  } catch {
    return 0;
  }
}

/**
 * The submissions another process made for node `nodeId` since `offset` (an agent that ran `artifact-ingest
 * submit --run-id R --node-id N` itself): the `artifact.submitted` events appended to the run's events.jsonl,
 * each type's latest payload read back from the object store. Reads at most {@link MAX_ATTEMPT_EVENT_BYTES}.
 */
export async function readAttemptSubmissions(
  project: ProjectRef,
  runId: RunId,
  nodeId: string,
  offset: number,
): Promise<AttemptSubmission[]> {
  const text = await usingProject(project, ({ store }) => readAppended(store, runEventsPath(runId), offset));
  const types: ContractType[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"artifact.submitted"')) continue;
    let event: unknown;
    try {
      event = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof event !== 'object' || event === null) continue;
    const fields = event as Record<string, unknown>;
    if (fields.event !== 'artifact.submitted' || fields.task !== nodeId) continue;
    const type = fields.type;
    if (typeof type !== 'string' || !isContractType(type)) continue;
    // The latest submission of a type is the one that counts: keep each type once, at its last position.
    const earlier = types.indexOf(type);
    if (earlier !== -1) types.splice(earlier, 1);
    types.push(type);
  }
  const submissions: AttemptSubmission[] = [];
  for (const type of types) {
    // The submissions' records and objects are read by the contracts, from the project folder's store.
    const latest = await readLatestPayload(projectDirOf(project), runId, type);
    if (latest === undefined) continue;
    // Checked again: the object store is the truth, but a payload that no longer validates cannot count.
    const checked = validateArtifact(type, latest.payload);
    if (!checked.ok) {
      submissions.push({ accepted: false, type, errors: checked.errors });
      continue;
    }
    submissions.push({ accepted: true, type, path: latest.record.path, payload: checked.payload });
  }
  return submissions;
}

/** The whole lines appended to `key` from `offset` on, at most {@link MAX_ATTEMPT_EVENT_BYTES}; '' when unreadable. */
async function readAppended(store: ProjectStore, key: string, offset: number): Promise<string> {
  let tail;
  try {
    tail = await store.readFrom(key, offset, MAX_ATTEMPT_EVENT_BYTES);
  } catch {
    return '';
  }
  if (tail === undefined || tail.bytes.byteLength === 0) return '';
  const text = Buffer.from(tail.bytes).toString('utf8');
  // Only whole lines: a line cut by the bound is dropped rather than misread.
  return text.slice(0, text.lastIndexOf('\n') + 1);
}
