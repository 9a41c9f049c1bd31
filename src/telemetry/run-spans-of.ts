import { redactSecrets } from '../project/index.js';
import type { RecordedBlock, RecordedRun, RecordedStep } from './recorded-run.js';
import {
  agentSpanName,
  ATTR,
  FILE_EVENT,
  GEN_AI,
  ingestSpanName,
  INVOKE_AGENT,
  nodeSpanName,
  runSpanName,
  spanIdOf,
  stepSpanName,
  traceIdOfRun,
} from './span-tree.js';
import type { TraceAttributeValue, TraceSpan, TraceSpanEvent } from './trace-span.js';

type Attributes = Record<string, TraceAttributeValue>;

/** Run statuses that end in an error (`failed` graph runs, `aborted` workflows). */
const FAILED_RUN = new Set(['failed', 'aborted']);
/** Run statuses that ended well. */
const DONE_RUN = new Set(['completed', 'complete']);

/**
 * The span tree of a run from what it recorded (spec git-and-traces.md, "Traces"): one root span per run, a child
 * per node execution or step pass that started (attempts included), and under each an `invoke_agent` span for its
 * agent call and an `ingest` span with the block counts and one `artifact.file` event per block. Ids come from
 * the run ({@link traceIdOfRun}, {@link spanIdOf}), so exporting the same run again gives the same spans; times
 * are the recorded ones. Error messages pass redaction. Parents come before their children.
 */
export function runSpansOf(recorded: RecordedRun): TraceSpan[] {
  const { run } = recorded;
  const traceId = traceIdOfRun(run.runId);
  const rootId = spanIdOf(run.runId, ['run']);
  const ran = recorded.steps.filter((step) => step.startedAt !== null);
  const times = ran.flatMap((step) => [step.startedAt, step.finishedAt]).filter(isTime);
  const startTime = run.startedAt ?? earliest(times);
  if (startTime === undefined) return [];
  const endTime = maxTime(startTime, run.finishedAt ?? latest(times) ?? startTime);
  const root: TraceSpan = {
    traceId,
    spanId: rootId,
    parentSpanId: null,
    name: runSpanName(run.runId),
    kind: 'internal',
    startTime,
    endTime,
    attributes: definedAttributes({
      [ATTR.runId]: run.runId,
      [ATTR.runKind]: run.kind,
      [ATTR.graph]: run.definition?.name,
      [ATTR.host]: run.host ?? undefined,
      [ATTR.status]: run.status,
    }),
    events: [],
    status: FAILED_RUN.has(run.status)
      ? { code: 'error', message: `run ${run.status}` }
      : { code: DONE_RUN.has(run.status) ? 'ok' : 'unset' },
  };
  const spans: TraceSpan[] = [root];
  const places = new Set<string>();
  for (const step of ran) {
    const place = uniquePlace(step, places);
    spans.push(...stepSpans(run.runId, traceId, rootId, place, step, endTime));
  }
  return spans;
}

/** The node span of a step, then its agent span and its ingest span. */
function stepSpans(
  runId: string,
  traceId: string,
  rootId: string,
  place: readonly string[],
  step: RecordedStep,
  runEnd: string,
): TraceSpan[] {
  const startTime = step.startedAt ?? runEnd;
  const endTime = maxTime(startTime, step.finishedAt ?? runEnd);
  const nodeId = spanIdOf(runId, place);
  const error = step.error === null ? null : redactSecrets(`${step.error.code}: ${step.error.message}`);
  const node: TraceSpan = {
    traceId,
    spanId: nodeId,
    parentSpanId: rootId,
    name: step.kind === 'step' ? stepSpanName(step.id) : nodeSpanName(step.id),
    kind: 'internal',
    startTime,
    endTime,
    attributes: definedAttributes({
      [ATTR.runId]: runId,
      [step.kind === 'step' ? ATTR.stepId : ATTR.nodeId]: step.id,
      [ATTR.status]: step.status,
      [ATTR.attempt]: step.attempt,
      [ATTR.promptSha256]: step.promptSha256 ?? undefined,
      [ATTR.document]: step.document?.path,
    }),
    events: [],
    status:
      error !== null || step.status === 'failed'
        ? { code: 'error', message: error ?? `${step.id} failed` }
        : { code: step.status === 'completed' ? 'ok' : 'unset' },
  };
  const spans = [node];
  const ingestStart = step.ingest?.startedAt ?? null;
  // The agent's part ends where the ingest of its reply began, or with the step when nothing was ingested.
  const agentEnd = ingestStart === null ? endTime : clamp(ingestStart, startTime, endTime);
  if (step.agent !== null && step.agent !== 'runtime') {
    // An error with no document is the agent's (it did not reply); one after the document is the ingest's or
    // the contract's.
    const agentError = error !== null && step.document === null ? error : null;
    spans.push({
      traceId,
      spanId: spanIdOf(runId, [...place, 'agent']),
      parentSpanId: nodeId,
      name: agentSpanName(step.agent),
      kind: 'client',
      startTime,
      endTime: agentEnd,
      attributes: definedAttributes({
        [GEN_AI.operationName]: INVOKE_AGENT,
        [GEN_AI.agentId]: step.agent,
        [GEN_AI.agentName]: step.agent,
        [GEN_AI.providerName]: step.agentCall?.provider,
        [GEN_AI.requestModel]: step.agentCall?.requestModel,
        [GEN_AI.responseModel]: step.agentCall?.responseModel,
        [GEN_AI.inputTokens]: step.agentCall?.inputTokens,
        [GEN_AI.outputTokens]: step.agentCall?.outputTokens,
        [ATTR.promptSha256]: step.promptSha256 ?? undefined,
      }),
      events: [],
      status: agentError === null ? { code: 'unset' } : { code: 'error', message: agentError },
    });
  }
  // An ingest ran when its manifest judged blocks or its events say so (an `ingest --run-id` step records no
  // document of its own: the events name it).
  if (step.blocks.length > 0 || ingestStart !== null) {
    spans.push(ingestSpan(runId, traceId, nodeId, place, step, agentEnd, endTime));
  }
  return spans;
}

function ingestSpan(
  runId: string,
  traceId: string,
  parentSpanId: string,
  place: readonly string[],
  step: RecordedStep,
  defaultStart: string,
  stepEnd: string,
): TraceSpan {
  const startTime = step.ingest?.startedAt ?? defaultStart;
  const endTime = maxTime(startTime, step.ingest?.finishedAt ?? stepEnd);
  const count = (status: string): number => step.blocks.filter((block) => block.status === status).length;
  const recorded = new Map(step.files.map((file) => [file.path, file]));
  const events = step.blocks.map((block) => fileEvent(block, recorded, endTime));
  const rejected = count('rejected');
  const document = step.document?.path ?? step.ingest?.document ?? undefined;
  return {
    traceId,
    spanId: spanIdOf(runId, [...place, 'ingest']),
    parentSpanId,
    name: ingestSpanName(document ?? step.id),
    kind: 'internal',
    startTime,
    endTime,
    attributes: definedAttributes({
      [ATTR.runId]: runId,
      [ATTR.document]: document,
      [ATTR.sha256]: step.document?.sha256,
      [ATTR.blocksFound]: step.blocks.length + (step.blocksOmitted ?? 0),
      [ATTR.blocksWritten]: count('written'),
      [ATTR.blocksSkipped]: count('skipped'),
      [ATTR.blocksRejected]: rejected,
    }),
    events,
    // A rejected block is the agent's mistake the ingest caught, not a failure of the ingest.
    status: { code: 'unset' },
  };
}

/** One block as a file event: `written` (a new version recorded), `unchanged`, `skipped` or `rejected`. */
function fileEvent(
  block: RecordedBlock,
  recorded: ReadonlyMap<string, RecordedStep['files'][number]>,
  time: string,
): TraceSpanEvent {
  const file = block.workspacePath === '' ? undefined : recorded.get(block.workspacePath);
  const status = block.status === 'written' && file === undefined ? 'unchanged' : block.status;
  return {
    name: FILE_EVENT,
    time,
    attributes: definedAttributes({
      [ATTR.path]: block.workspacePath === '' ? block.declaredFile : block.workspacePath,
      [ATTR.sha256]: block.sha256,
      [ATTR.bytes]: block.bytes,
      [ATTR.fileStatus]: status,
      [ATTR.reason]: block.code === '' ? undefined : block.code,
      [ATTR.artifactId]: file?.artifactId,
    }),
  };
}

/** The step's place in the tree: its kind, id and attempt, or its unique key when those repeat. */
function uniquePlace(step: RecordedStep, taken: Set<string>): readonly string[] {
  const first = [step.kind, step.id, String(step.attempt)];
  const place = taken.has(first.join('\n')) ? [step.kind, step.key] : first;
  taken.add(place.join('\n'));
  return place;
}

function definedAttributes(
  entries: Readonly<Record<string, TraceAttributeValue | undefined>>,
): Readonly<Attributes> {
  const attributes: Attributes = {};
  for (const [key, value] of Object.entries(entries)) if (value !== undefined) attributes[key] = value;
  return attributes;
}

function isTime(value: string | null): value is string {
  return value !== null && Number.isFinite(Date.parse(value));
}

function earliest(times: readonly string[]): string | undefined {
  return [...times].sort((a, b) => Date.parse(a) - Date.parse(b))[0];
}

function latest(times: readonly string[]): string | undefined {
  return [...times].sort((a, b) => Date.parse(b) - Date.parse(a))[0];
}

/** `end`, or `start` when the records put the end before it (a clock step): a span never ends before it starts. */
function maxTime(start: string, end: string): string {
  return Date.parse(end) < Date.parse(start) ? start : end;
}

function clamp(time: string, start: string, end: string): string {
  if (Date.parse(time) < Date.parse(start)) return start;
  return Date.parse(time) > Date.parse(end) ? end : time;
}
