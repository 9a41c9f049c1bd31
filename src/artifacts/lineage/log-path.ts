import type { ArtifactType } from '../artifact-record.js';
import { projectDirOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import { readPathVersions } from '../store/index.js';
import type { RecordLineProblem } from '../store/index.js';
import { resolveRecordPath } from './resolve-record-path.js';

/** One recorded version of a path: who made it, when, its content and its line changes against the one before. */
export interface PathVersion {
  readonly artifactId: string;
  readonly runId: string;
  /** The node (or workflow step) that produced it. */
  readonly taskId: string;
  readonly agentId: string;
  readonly type: ArtifactType;
  readonly createdAt: string;
  readonly contentHash: string;
  readonly bytes: number;
  readonly linesAdded: number;
  readonly linesRemoved: number;
  /** The artifact id of the version before it; absent for a first version. */
  readonly previous?: string;
}

/** Every recorded version of one path, oldest first, and the unreadable lines of its index file. */
export interface PathLog {
  /** The project-relative path the input resolved to, such as `workspace/src/a.ts`. */
  readonly path: string;
  readonly versions: readonly PathVersion[];
  readonly problems: readonly RecordLineProblem[];
}

/**
 * Lists every recorded version of a path across the project's runs, oldest first, from the path's one index
 * file (no object and no other run file is read); throws LineageError `unknown_path` for a path outside the project.
 */
export async function logPath(project: ProjectRef, path: string): Promise<PathLog> {
  const recordPath = resolveRecordPath(projectDirOf(project), path);
  const { records, problems } = await readPathVersions(project, recordPath);
  const versions = records.map((record): PathVersion => ({
    artifactId: record.artifactId,
    runId: record.runId,
    taskId: record.taskId,
    agentId: record.agentId,
    type: record.type,
    createdAt: record.createdAt,
    contentHash: record.contentHash,
    bytes: record.metadata.bytes,
    linesAdded: record.metadata.linesAdded,
    linesRemoved: record.metadata.linesRemoved,
    ...(record.metadata.previous === undefined ? {} : { previous: record.metadata.previous }),
  }));
  return { path: recordPath, versions, problems };
}
