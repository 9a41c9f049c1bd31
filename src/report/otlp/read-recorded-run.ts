import { readRunEvents } from '../../events/index.js';
import { parseRunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { RecordedRun, RecordedStep } from '../../telemetry/index.js';
import { readRunReport } from '../model/index.js';
import type { ReportProblem, RunReportOptions } from '../model/index.js';

/**
 * The report caps of a trace export: every file version and every block (each is a span event), no diff and no
 * document text (no span carries them), and neither verify nor audit (no span carries their verdicts).
 */
export const TRACE_REPORT_OPTIONS: RunReportOptions = Object.freeze({
  maxFiles: Number.MAX_SAFE_INTEGER,
  maxBlocks: Number.MAX_SAFE_INTEGER,
  maxDiffBytesTotal: 0,
  maxDocumentBytesTotal: 0,
  checks: false,
});

/** A run as the trace export reads it, and what could not be read (the export shows the rest). */
export interface RecordedRunRead {
  readonly recorded: RecordedRun;
  readonly problems: readonly ReportProblem[];
}

/**
 * Reads what a run recorded for its trace, through the project's store (so a remote works as the local folder
 * does): its report (state, records, traces, manifests) and, from its events, when each ingest started and
 * ended. Throws UnknownRunError for a run that does not exist.
 */
export async function readRecordedRun(project: ProjectRef, runId: string): Promise<RecordedRunRead> {
  const report = await readRunReport(project, runId, TRACE_REPORT_OPTIONS);
  const id = parseRunId(report.run.runId, 'run id');
  const started = await ingestTimes(project, id, '"ingest.started"');
  const summaries = await ingestTimes(project, id, '"ingest.summary"');
  const seen = new Map<string, number>();
  const steps = report.steps.map((step): RecordedStep => {
    // Only an execution that wrote a document ingests (an `ingest --run-id` step is its ingest).
    if (step.startedAt === null || (step.document === null && step.kind !== 'ingest')) return step;
    // The n-th ingest of a node is its n-th execution's that wrote a document (attempts re-ingest).
    const nth = seen.get(step.id) ?? 0;
    seen.set(step.id, nth + 1);
    const start = started.get(step.id)?.[nth];
    if (start === undefined) return step;
    const finishedAt = summaries.get(step.id)?.[nth]?.ts ?? null;
    return { ...step, ingest: { startedAt: start.ts, finishedAt, document: start.document } };
  });
  return { recorded: { run: report.run, steps }, problems: report.problems };
}

/** The time and document of one ingest event, by node or step id, in order. */
async function ingestTimes(
  project: ProjectRef,
  runId: ReturnType<typeof parseRunId>,
  marker: string,
): Promise<Map<string, { ts: string; document: string | null }[]>> {
  const times = new Map<string, { ts: string; document: string | null }[]>();
  const name = marker.slice(1, -1);
  for await (const event of readRunEvents(project, runId, marker)) {
    const { event: eventName, ts, node_id: nodeId, doc_path: docPath } = event;
    if (eventName !== name || typeof ts !== 'string' || typeof nodeId !== 'string') continue;
    const document = typeof docPath === 'string' ? docPath : null;
    times.set(nodeId, [...(times.get(nodeId) ?? []), { ts, document }]);
  }
  return times;
}
