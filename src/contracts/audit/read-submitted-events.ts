import { readRunEvents } from '../../events/index.js';
import type { RunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';

/** The `artifact.submitted` events of a run: for each artifact path, the hashes submitted to it. */
export type SubmittedEvents = ReadonlyMap<string, ReadonlySet<string>>;

/**
 * Reads the run's `artifact.submitted` events from its events.jsonl, line by line (the log is never read
 * whole); a missing log, a log planted as a symlink and unreadable lines count as no event.
 */
export async function readSubmittedEvents(project: ProjectRef, runId: RunId): Promise<SubmittedEvents> {
  const submitted = new Map<string, Set<string>>();
  for await (const event of readRunEvents(project, runId, '"artifact.submitted"')) {
    const { event: name, path: artifactPath, hash } = event;
    if (name !== 'artifact.submitted' || typeof artifactPath !== 'string' || typeof hash !== 'string')
      continue;
    const hashes = submitted.get(artifactPath) ?? new Set<string>();
    hashes.add(hash);
    submitted.set(artifactPath, hashes);
  }
  return submitted;
}
