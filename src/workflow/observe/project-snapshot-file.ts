import { describeError, runDir } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { StoreError, usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { projectSnapshotSchema } from './project-snapshot-schema.js';
import type { ProjectSnapshot } from './project-snapshot-schema.js';
import { ObserveError } from './observe-error.js';

/** `.agent/runs/<run_id>/snapshots/<step>[-<pass>].json`: the snapshot taken when a step (or one pass) started. */
export function snapshotPath(runId: RunId, step: NodeId, pass?: number): string {
  return `${runDir(runId)}/snapshots/${step}${pass === undefined ? '' : `-${String(pass)}`}.json`;
}

/** Writes a snapshot into the run folder through the project's store (an atomic replace, never through a symlink). */
export async function writeProjectSnapshot(
  project: ProjectRef,
  relativePath: string,
  snapshot: ProjectSnapshot,
  options: { readonly durability?: 'fsync' | 'none' } = {},
): Promise<void> {
  try {
    await usingProject(project, ({ store }) =>
      store.replace(relativePath, `${JSON.stringify(snapshot)}\n`, {
        durability: options.durability ?? 'fsync',
      }),
    );
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    throw new ObserveError(
      'snapshot_write_failed',
      `${relativePath} was not written: ${error.refusal ?? error.code}: ${error.message}`,
      { cause: error },
    );
  }
}

/** Reads a stored snapshot back (never through a symlink); undefined when none was stored at that path. */
export async function readProjectSnapshot(
  project: ProjectRef,
  relativePath: string,
): Promise<ProjectSnapshot | undefined> {
  let text: string | undefined;
  try {
    text = await usingProject(project, ({ store }) => store.readText(relativePath));
  } catch (error) {
    throw new ObserveError('snapshot_unreadable', `${relativePath} cannot be read: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ObserveError(
      'snapshot_unreadable',
      `${relativePath} is not JSON; delete it to snapshot again`,
      {
        cause: error,
      },
    );
  }
  const parsed = projectSnapshotSchema.safeParse(json);
  if (!parsed.success) {
    throw new ObserveError(
      'snapshot_unreadable',
      `${relativePath} is not a project snapshot (${parsed.error.issues[0]?.message ?? 'invalid'}); delete it to snapshot again`,
    );
  }
  return parsed.data;
}
