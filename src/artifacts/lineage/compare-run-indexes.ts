import { HISTORY_INDEX_DIR, RUN_ORDER_INDEX_PATH } from '../../project/index.js';
import { isWorkspaceVersion, readRunStarts, readWholeHistory } from '../store/index.js';
import type { ProjectRecords } from '../store/index.js';
import type { Project } from '../../store/index.js';
import type { VerifyProblem } from './verify-problem.js';

const REINDEX = "run 'artifact-ingest reindex' to rebuild the indexes";

/**
 * Compares the run indexes with every run's records: the history journal (as a set of workspace versions: an
 * import retried may append a version twice, which changes no answer) and runs.jsonl (each run with records
 * listed at its earliest record). Drift is a warning: the indexes are rebuilt from the runs by `reindex`.
 */
export async function compareRunIndexes(store: Project, project: ProjectRecords): Promise<VerifyProblem[]> {
  const problems: VerifyProblem[] = [];
  const history = await readWholeHistory(store);
  const versions = project.runs.some((run) => (project.byRun.get(run) ?? []).some(isWorkspaceVersion));
  // Without a workspace version there is nothing to miss: the recorder marks the journal complete when it starts.
  if ('incomplete' in history && versions) {
    problems.push({
      code: 'index_stale',
      severity: 'warning',
      message: `the history index ${HISTORY_INDEX_DIR}/ cannot answer (${history.incomplete}), so checkout reads every run's records; ${REINDEX}`,
    });
  } else if (!('incomplete' in history)) {
    for (const problem of history.problems)
      problems.push({
        code: 'invalid_record_line',
        severity: 'warning',
        message: `${problem.message}; ${REINDEX}`,
      });
    const journal = new Set(history.records.map((record) => JSON.stringify(record)));
    const expected = new Set<string>();
    for (const run of project.runs) {
      for (const record of project.byRun.get(run) ?? []) {
        if (!isWorkspaceVersion(record)) continue;
        const key = JSON.stringify(record);
        expected.add(key);
        if (journal.has(key)) continue;
        problems.push({
          code: 'index_missing_record',
          severity: 'warning',
          message: `${record.artifactId} (${record.path}, run ${record.runId}) is missing from the history index ${HISTORY_INDEX_DIR}/, so checkout cannot see it; ${REINDEX}`,
          path: record.path,
          runId: record.runId,
          artifactId: record.artifactId,
          contentHash: record.contentHash,
        });
      }
    }
    for (const record of history.records) {
      if (expected.has(JSON.stringify(record))) continue;
      problems.push({
        code: 'index_unknown_record',
        severity: 'warning',
        message: `the history index ${HISTORY_INDEX_DIR}/ holds ${record.artifactId} (${record.path}, run ${record.runId}), which no run's artifacts.jsonl records; ${REINDEX}`,
        path: record.path,
        runId: record.runId,
        artifactId: record.artifactId,
        contentHash: record.contentHash,
      });
    }
  }
  const { starts, unreadable } = await readRunStarts(store);
  const drift: string[] = [];
  const recorded = new Set<string>(project.runs.filter((run) => (project.byRun.get(run)?.length ?? 0) > 0));
  if (unreadable > 0) drift.push(`${String(unreadable)} unreadable line(s)`);
  for (const run of project.runs) {
    const records = project.byRun.get(run) ?? [];
    if (records.length === 0) continue;
    const earliest = Math.min(...records.map((record) => Date.parse(record.createdAt)));
    const listed = starts.get(run);
    if (listed === undefined) drift.push(`run ${run} is missing`);
    else if (Date.parse(listed) !== earliest)
      drift.push(`run ${run} is listed at ${listed}, not at its earliest record`);
  }
  for (const run of starts.keys()) if (!recorded.has(run)) drift.push(`run ${run} has no records`);
  if (drift.length > 0) {
    const shown = drift.slice(0, 3).join('; ');
    const more = drift.length > 3 ? ` and ${String(drift.length - 3)} more` : '';
    problems.push({
      code: 'index_stale',
      severity: 'warning',
      message: `the run-order index ${RUN_ORDER_INDEX_PATH} disagrees with the runs (${shown}${more}), so checkout without --run may pick another run; ${REINDEX}`,
    });
  }
  return problems;
}
