import { readRunEvents } from '../../events/index.js';
import { parseRunId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { AgentCallUsage, RecordedRun, RecordedStep } from '../../telemetry/index.js';
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
 * ended and what each agent call reported of its model and tokens. Throws UnknownRunError for a run that does
 * not exist.
 */
export async function readRecordedRun(project: ProjectRef, runId: string): Promise<RecordedRunRead> {
  const report = await readRunReport(project, runId, TRACE_REPORT_OPTIONS);
  const id = parseRunId(report.run.runId, 'run id');
  const ingests = await ingestsOf(project, id);
  const agentCalls = await agentCallsOf(project, id);
  const seen = new Map<string, number>();
  const steps = report.steps.map((step): RecordedStep => {
    const agentCall = step.kind === 'node' ? agentCalls.get(agentCallKey(step.id, step.attempt)) : undefined;
    const called = agentCall === undefined ? step : { ...step, agentCall };
    // Only an execution that wrote a document ingests (an `ingest --run-id` step is its ingest).
    if (step.startedAt === null || (step.document === null && step.kind !== 'ingest')) return called;
    // The n-th ingest of a node is its n-th execution's that wrote a document (attempts re-ingest).
    const nth = seen.get(step.id) ?? 0;
    seen.set(step.id, nth + 1);
    const ingest = ingests.get(step.id)?.[nth];
    return ingest === undefined ? called : { ...called, ingest };
  });
  return { recorded: { run: report.run, steps }, problems: report.problems };
}

function agentCallKey(nodeId: string, attempt: number): string {
  return `${nodeId}\u0000${String(attempt)}`;
}

/**
 * What each agent call reported, by node and attempt, from the run's `agent.usage` events; a field that is not
 * what the runtime writes (a model that is not text, a count that is not a whole number) is left out.
 */
async function agentCallsOf(project: ProjectRef, runId: RunId): Promise<Map<string, AgentCallUsage>> {
  const calls = new Map<string, AgentCallUsage>();
  for await (const event of readRunEvents(project, runId, '"agent.usage"')) {
    const { event: name, node_id: nodeId, attempt } = event;
    if (name !== 'agent.usage' || typeof nodeId !== 'string' || !isCount(attempt)) continue;
    const provider = textOf(event['provider']);
    const requestModel = textOf(event['request_model']);
    const responseModel = textOf(event['model']);
    const inputTokens = isCount(event['input_tokens']) ? event['input_tokens'] : undefined;
    const outputTokens = isCount(event['output_tokens']) ? event['output_tokens'] : undefined;
    const usage: AgentCallUsage = {
      ...(provider === undefined ? {} : { provider }),
      ...(requestModel === undefined ? {} : { requestModel }),
      ...(responseModel === undefined ? {} : { responseModel }),
      ...(inputTokens === undefined ? {} : { inputTokens }),
      ...(outputTokens === undefined ? {} : { outputTokens }),
    };
    // One call per attempt: a second event for it (a log appended to by hand) does not replace the first.
    const key = agentCallKey(nodeId, attempt);
    if (!calls.has(key)) calls.set(key, usage);
  }
  return calls;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
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
