import { sha256Hex } from '../project/index.js';

/**
 * The one span tree of a run (spec git-and-traces.md, "Traces"), shared by the live spans (through
 * `@opentelemetry/api`) and the after-the-fact export (`export otlp`): names, attribute keys and, for the export,
 * ids derived from the run so a re-export does not duplicate it.
 *
 * - root: one span per run, no parent: {@link runSpanName}, with {@link ATTR}.runId, .runKind, .graph, .host;
 * - a child per graph node ({@link nodeSpanName}) or workflow step pass ({@link stepSpanName}), with .nodeId or
 *   .stepId, .status, .attempt;
 * - under a node or step: a child per agent call ({@link agentSpanName}, GenAI `invoke_agent`, with
 *   {@link GEN_AI}.operationName, .agentId, .agentName, and the model and token usage where the agent reports
 *   them), and a child per ingest ({@link ingestSpanName}) with the block counts and one {@link FILE_EVENT} span
 *   event per file.
 * Errors set the span's status to ERROR with the error's message (never a secret: messages pass redaction).
 */

/** The instrumentation scope the spans are created under (`trace.getTracer(name, version)`). */
export const TRACER_NAME = 'artifact-ingest';

/** Our own attribute keys (`artifact.*`). */
export const ATTR = {
  runId: 'artifact.run_id',
  /** `graph` or `workflow`. */
  runKind: 'artifact.run_kind',
  /** The graph's or the workflow's name. */
  graph: 'artifact.graph',
  host: 'artifact.host',
  nodeId: 'artifact.node_id',
  nodeType: 'artifact.node_type',
  stepId: 'artifact.step_id',
  /** The node's or step's end status (`completed`, `failed`, ...). */
  status: 'artifact.status',
  attempt: 'artifact.attempt',
  promptSha256: 'artifact.prompt_sha256',
  /** The document an ingest read (`docs/...`). */
  document: 'artifact.document',
  blocksFound: 'artifact.blocks.found',
  blocksWritten: 'artifact.blocks.written',
  blocksSkipped: 'artifact.blocks.skipped',
  blocksRejected: 'artifact.blocks.rejected',
  /** On a {@link FILE_EVENT}: the file's path in the project (`workspace/...`). */
  path: 'artifact.path',
  sha256: 'artifact.sha256',
  bytes: 'artifact.bytes',
  /** On a {@link FILE_EVENT}: `written`, `unchanged`, `skipped` or `rejected` (with .reason). */
  fileStatus: 'artifact.file_status',
  reason: 'artifact.reason',
  artifactId: 'artifact.artifact_id',
} as const;

/** The OpenTelemetry GenAI semantic conventions' keys we set (still marked Development upstream). */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  agentId: 'gen_ai.agent.id',
  agentName: 'gen_ai.agent.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
} as const;

/** `gen_ai.operation.name` of an agent call. */
export const INVOKE_AGENT = 'invoke_agent';

/** The span event an ingest adds per file. */
export const FILE_EVENT = 'artifact.file';

export const runSpanName = (runId: string): string => `run ${runId}`;
export const nodeSpanName = (nodeId: string): string => `node ${nodeId}`;
export const stepSpanName = (stepId: string): string => `step ${stepId}`;
/** GenAI's span name for an agent call: `invoke_agent {gen_ai.agent.name}`. */
export const agentSpanName = (agentName: string): string => `${INVOKE_AGENT} ${agentName}`;
export const ingestSpanName = (document: string): string => `ingest ${document}`;

/** The trace id of a run's export: 32 lowercase hex digits derived from the run id (never all zeros). */
export function traceIdOfRun(runId: string): string {
  return nonZero(sha256Hex(`artifact-ingest trace\n${runId}`).slice(0, 32));
}

/**
 * The span id of one span of a run's export: 16 lowercase hex digits derived from the run id and the span's place
 * in the tree (`['node', 'plan', '2']`: the node, its attempt), so the same span gets the same id on every export.
 */
export function spanIdOf(runId: string, place: readonly string[]): string {
  return nonZero(sha256Hex(`artifact-ingest span\n${runId}\n${place.join('\n')}`).slice(0, 16));
}

/** An all-zero id is invalid in OpenTelemetry: the last digit is made 1 (2^-64 odds of mattering). */
function nonZero(hex: string): string {
  return /^0+$/.test(hex) ? `${hex.slice(0, -1)}1` : hex;
}
