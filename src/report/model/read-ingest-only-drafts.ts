import path from 'node:path';
import { runManifestsDir } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { notRun, sortByStart } from './draft-steps.js';
import type { StepDraft } from './draft-steps.js';
import { listJsonFiles } from './list-json-files.js';
import { readRegularFile } from '../../workspace/index.js';

/**
 * Adds to an `ingest --run-id` run's drafts the ingests that recorded nothing (every block refused, or skipped as
 * `unchanged`): they have a manifest but no record, so the timeline does not see them. Keeps the drafts in start
 * order.
 */
export async function readIngestOnlyDrafts(
  projectDir: string,
  runId: RunId,
  drafts: readonly StepDraft[],
): Promise<StepDraft[]> {
  const folder = runManifestsDir(runId);
  const listed = await listJsonFiles(projectDir, folder);
  // An unlistable manifests folder leaves the drafts the records gave, as a missing one does.
  if ('error' in listed) return [...drafts];
  const known = new Set(drafts.map((draft) => draft.id));
  const added: StepDraft[] = [];
  for (const name of listed.names) {
    const id = name.slice(0, -'.json'.length);
    if (known.has(id)) continue;
    const manifestPath = `${folder}/${name}`;
    const ts = await manifestTime(path.join(projectDir, manifestPath));
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
async function manifestTime(file: string): Promise<string | null> {
  try {
    const value: unknown = JSON.parse(await readRegularFile(file, 'utf8'));
    const ts = (value as { ts?: unknown } | null)?.ts;
    return typeof ts === 'string' && Number.isFinite(Date.parse(ts)) ? ts : null;
  } catch {
    return null;
  }
}
