import { artifactRecordsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ArtifactRecord } from '../artifact-record.js';
import { judgeRecordPath, judgeTracePaths } from '../judge-record-path.js';
import type { RecordPathRefusal } from '../judge-record-path.js';
import type { TraceContent } from '../trace-content.js';
import { BundleError } from './bundle-error.js';

/**
 * Every path a record of run `runId` holds passes the rule of the writer that records its kind (judgeRecordPath),
 * and so does every path inside a trace's content (judgeTracePaths, the content from `traceContent`; one that is
 * not a trace holds no path a reader uses): otherwise verify, checkout or report would later turn it into a
 * filesystem path outside the project, into .git, or with a NUL in it. The first one is `unsafe_record_path`,
 * its message ending with `advice`.
 */
export async function checkRecordPaths(
  runId: RunId,
  records: readonly ArtifactRecord[],
  traceContent: (hash: string) => Promise<TraceContent | undefined>,
  advice: string,
): Promise<void> {
  for (const record of records) {
    const refused = judgeRecordPath(record);
    if (refused !== undefined) throw unsafeRecordPath(runId, record, refused, '', advice);
  }
  for (const record of records) {
    if (record.type !== 'trace') continue;
    const content = await traceContent(record.contentHash);
    const refused = content === undefined ? undefined : judgeTracePaths(record, content);
    if (refused !== undefined) throw unsafeRecordPath(runId, record, refused, 'its trace ', advice);
  }
}

function unsafeRecordPath(
  runId: RunId,
  record: ArtifactRecord,
  refused: RecordPathRefusal,
  where: string,
  advice: string,
): BundleError {
  const recordsFile = artifactRecordsPath(runId);
  return new BundleError({
    code: 'unsafe_record_path',
    entry: recordsFile,
    message: `record ${record.artifactId} (${record.type} of node ${record.taskId}) in ${recordsFile}: ${where}${refused.message} (rule ${refused.rule}); artifact-ingest never records such a path, so ${advice}`,
  });
}
