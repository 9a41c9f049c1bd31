import { LineageError, logPath, openVersionDiffer } from '../../artifacts/index.js';
import type { ProjectRef } from '../../store/index.js';
import { createReportBudget } from './report-budget.js';
import { reportDiff, shellWord } from './report-diff.js';
import { resolveReportCaps } from './report-limits.js';
import type { RunReportOptions } from './report-limits.js';
import type { PathReport, PathReportVersion } from './run-report.js';

/**
 * Reads the lineage of one path across runs (`report --path P`): every version, oldest first, with who wrote it
 * and its diff against the version before, under the same caps as a run's report; reads only. Throws
 * LineageError `unknown_path` for a path outside the project or one no run recorded.
 */
export async function readPathReport(
  project: ProjectRef,
  path: string,
  options: RunReportOptions = {},
): Promise<PathReport> {
  const budget = createReportBudget(resolveReportCaps(options));
  const log = await logPath(project, path);
  if (log.versions.length === 0) {
    throw new LineageError({
      code: 'unknown_path',
      message: `no run recorded a version of ${JSON.stringify(path)}; list a run's paths with 'artifact-ingest replay RUN_ID'`,
    });
  }
  // The versions a path's versions point back to are versions of the same path: the log already holds them.
  const differ = openVersionDiffer(
    project,
    new Map(log.versions.map((version) => [version.artifactId, version])),
  );
  const versions: PathReportVersion[] = [];
  try {
    for (const version of log.versions) {
      const previous = version.previous ?? null;
      versions.push({
        artifactId: version.artifactId,
        runId: version.runId,
        taskId: version.taskId,
        agentId: version.agentId,
        type: version.type,
        createdAt: version.createdAt,
        contentHash: version.contentHash,
        bytes: version.bytes,
        linesAdded: version.linesAdded,
        linesRemoved: version.linesRemoved,
        previous,
        diff: await reportDiff(
          differ,
          budget,
          { path: log.path, artifactId: version.artifactId, contentHash: version.contentHash, previous },
          version.runId,
        ),
      });
    }
  } finally {
    await differ.close();
  }
  return {
    reportVersion: 1,
    path: log.path,
    versions,
    limits: budget.limits(`artifact-ingest log ${shellWord(log.path)}`),
    problems: log.problems.map(({ code, message }) => ({ code, message })),
  };
}
