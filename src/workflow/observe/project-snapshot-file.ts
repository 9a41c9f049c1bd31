import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import { runDir } from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { errnoOf, openConfinedRoot } from '../../workspace/index.js';
import { projectSnapshotSchema } from './project-snapshot-schema.js';
import type { ProjectSnapshot } from './project-snapshot-schema.js';
import { ObserveError } from './observe-error.js';

/** `.agent/runs/<run_id>/snapshots/<step>[-<pass>].json`: the snapshot taken when a step (or one pass) started. */
export function snapshotPath(runId: RunId, step: NodeId, pass?: number): string {
  return `${runDir(runId)}/snapshots/${step}${pass === undefined ? '' : `-${String(pass)}`}.json`;
}

/** Writes a snapshot into the run folder through the confined writer (temp file + rename, never through a symlink). */
export async function writeProjectSnapshot(
  projectDir: string,
  relativePath: string,
  snapshot: ProjectSnapshot,
  options: { readonly durability?: 'fsync' | 'none' } = {},
): Promise<void> {
  const root = await openConfinedRoot(projectDir);
  try {
    const bytes = new TextEncoder().encode(`${JSON.stringify(snapshot)}\n`);
    const outcome = await root.write(relativePath, bytes, { durability: options.durability ?? 'fsync' });
    if (outcome.status === 'refused') {
      throw new ObserveError(
        'snapshot_write_failed',
        `${relativePath} was not written: ${outcome.code}: ${outcome.message}`,
      );
    }
  } finally {
    await root.close();
  }
}

/** Reads a stored snapshot back (never through a symlink); undefined when none was stored at that path. */
export async function readProjectSnapshot(
  projectDir: string,
  relativePath: string,
): Promise<ProjectSnapshot | undefined> {
  let text: string;
  try {
    const handle = await open(path.join(projectDir, relativePath), constants.O_RDONLY | constants.O_NOFOLLOW);
    try {
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return undefined;
    throw new ObserveError('snapshot_unreadable', `${relativePath} cannot be read: ${String(error)}`, {
      cause: error,
    });
  }
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
