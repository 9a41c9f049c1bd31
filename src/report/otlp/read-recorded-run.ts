import { readRunEvents } from '../../events/index.js';
import { parseRunId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
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
  const ingests = await ingestsOf(project, id);
  const seen = new Map<string, number>();
  const steps = report.steps.map((step): RecordedStep => {
    // Only an execution that wrote a document ingests (an `ingest --run-id` step is its ingest).
    if (step.startedAt === null || (step.document === null && step.kind !== 'ingest')) return step;
    // The n-th ingest of a node is its n-th execution's that wrote a document (attempts re-ingest).
    const nth = seen.get(step.id) ?? 0;
    seen.set(step.id, nth + 1);
    const ingest = ingests.get(step.id)?.[nth];
    return ingest === undefined ? step : { ...step, ingest };
  });
  return { recorded: { run: report.run, steps }, problems: report.problems };
}

/** One ingest as the events tell it. */
interface IngestTimes {
  startedAt: string;
  finishedAt: string | null;
  document: string | null;
}

/**
 * The ingests of a run by node or step id, in order, from its `ingest.started` and `ingest.summary` events: a
 * summary ends the ingest its node began, or is one of its own (a document with no file block logs no start).
 */
async function ingestsOf(project: ProjectRef, runId: RunId): Promise<Map<string, IngestTimes[]>> {
  const ingests = new Map<string, IngestTimes[]>();
  const open = new Map<string, IngestTimes>();
  for await (const event of readRunEvents(project, runId, '"ingest.')) {
    const { event: name, ts, node_id: nodeId, doc_path: docPath } = event;
    if (typeof ts !== 'string' || typeof nodeId !== 'string') continue;
    const document = typeof docPath === 'string' ? docPath : null;
    if (name === 'ingest.started') {
      const ingest: IngestTimes = { startedAt: ts, finishedAt: null, document };
      open.set(nodeId, ingest);
      ingests.set(nodeId, [...(ingests.get(nodeId) ?? []), ingest]);
    } else if (name === 'ingest.summary') {
      const begun = open.get(nodeId);
      open.delete(nodeId);
      if (begun !== undefined) begun.finishedAt = ts;
      else ingests.set(nodeId, [...(ingests.get(nodeId) ?? []), { startedAt: ts, finishedAt: ts, document }]);
    }
  }
  return ingests;
}
