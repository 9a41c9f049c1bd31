import { readRunEvents } from '../../events/index.js';
import { readRunCommits } from '../../git/index.js';
import type { RunId } from '../../project/index.js';
import type { Project } from '../../store/index.js';
import { traceIdOfRun } from '../../telemetry/index.js';
import type { ReportLinks } from './run-report.js';

const TRACE_ID = /^[0-9a-f]{32}$/;

/**
 * Where else the run can be seen: its trace ids (the one `export otlp` and `run --otlp` give it, and the ones live
 * spans recorded on `run.started` when an OpenTelemetry SDK was registered) and its commits on
 * `swarm/run-<run_id>` in `gitRepo` (docs/git.md), none when it was never exported there.
 */
export async function readReportLinks(project: Project, runId: RunId, gitRepo: string): Promise<ReportLinks> {
  const liveTraceIds: string[] = [];
  try {
    for await (const event of readRunEvents(project, runId, '"trace_id"')) {
      const id = event['trace_id'];
      if (
        event['event'] === 'run.started' &&
        typeof id === 'string' &&
        TRACE_ID.test(id) &&
        !liveTraceIds.includes(id)
      )
        liveTraceIds.push(id);
    }
  } catch {
    // The events are a log, not a record: an unreadable one shows no live trace.
  }
  const commits = await readRunCommits(gitRepo, runId);
  return {
    traceId: traceIdOfRun(runId),
    liveTraceIds,
    commits: commits.map(({ commit, taskId, subject }) => ({ commit, taskId, subject })),
  };
}
