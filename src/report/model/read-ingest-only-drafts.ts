import { runManifestsDir } from '../../project/index.js';
import type { Project } from '../../store/index.js';
import type { RunId } from '../../project/index.js';
import { notRun, sortByStart } from './draft-steps.js';
import type { StepDraft } from './draft-steps.js';
import { listJsonFiles } from './list-json-files.js';

/**
 * Adds to an `ingest --run-id` run's drafts the ingests that recorded nothing (every block refused, or skipped as
 * `unchanged`): they have a manifest but no record, so the timeline does not see them. Keeps the drafts in start
 * order.
 */
export async function readIngestOnlyDrafts(
  project: Project,
  runId: RunId,
  drafts: readonly StepDraft[],
): Promise<StepDraft[]> {
  const folder = runManifestsDir(runId);
  const listed = await listJsonFiles(project, folder);
  // An unlistable manifests folder leaves the drafts the records gave, as a missing one does.
  if ('error' in listed) return [...drafts];
  const known = new Set(drafts.map((draft) => draft.id));
  const added: StepDraft[] = [];
  for (const name of listed.names) {
    const id = name.slice(0, -'.json'.length);
    if (known.has(id)) continue;
    const manifestPath = `${folder}/${name}`;
    const ts = await manifestTime(project, manifestPath);
    added.push({
      ...notRun(id, 'ingest', 'completed'),
      startedAt: ts,
      finishedAt: ts,
      durationMs: ts === null ? null : 0,
      manifestPath,
      recordedAt: ts,
    });
  }
  return added.length === 0 ? [...drafts] : sortByStart([...drafts, ...added]);
}

/** A manifest's `ts`, read loosely: null when the file is not a JSON object with a string `ts`. */
async function manifestTime({ store }: Project, key: string): Promise<string | null> {
  try {
    const text = await store.readText(key);
    if (text === undefined) return null;
    const value: unknown = JSON.parse(text);
    const ts = (value as { ts?: unknown } | null)?.ts;
    return typeof ts === 'string' && Number.isFinite(Date.parse(ts)) ? ts : null;
  } catch {
    return null;
  }
}
