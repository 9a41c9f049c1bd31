import { artifactIdOf } from '../../src/artifacts/artifact-record.js';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

/**
 * A file version record of `path` made at `createdAt` by node `build` of `runId`, its content hash derived from
 * the path and time (so two versions of one path differ), for tests of the index and its readers.
 */
export function versionRecord(path: string, createdAt: string, runId = 'run-001'): ArtifactRecord {
  const contentHash = `sha256:${Buffer.from(`${path}@${createdAt}`).toString('hex').padEnd(64, '0').slice(0, 64)}`;
  return {
    artifactId: artifactIdOf({ runId: parseRunId(runId), taskId: parseNodeId('build'), path, contentHash }),
    runId: parseRunId(runId),
    taskId: parseNodeId('build'),
    agentId: 'builder-01',
    type: 'file',
    path,
    contentHash,
    createdAt,
    metadata: { bytes: 1, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
  };
}
