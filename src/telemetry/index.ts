export {
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
  TRACER_NAME,
} from './span-tree.js';
export type {
  AgentCallUsage,
  RecordedBlock,
  RecordedFile,
  RecordedRun,
  RecordedStep,
} from './recorded-run.js';
export type { TraceAttributeValue, TraceSpan, TraceSpanEvent } from './trace-span.js';
export { runSpansOf } from './run-spans-of.js';
export {
  OTLP_SERVICE_NAME,
  otlpTraceRequestOf,
  type OtlpAnyValue,
  type OtlpKeyValue,
  type OtlpSpan,
  type OtlpTraceRequest,
} from './otlp-trace-request.js';
export {
  LANGFUSE_DEFAULT_HOST,
  LANGFUSE_OTLP_PATH,
  OTLP_ENV,
  OTLP_TRACES_PATH,
  otlpProtocolMismatch,
  otlpTarget,
  type OtlpDestination,
  type OtlpTarget,
  type OtlpTargetErrorCode,
  type OtlpTargetRequest,
} from './otlp-target.js';
export {
  activeLiveContext,
  startAgentSpan,
  startNodeSpan,
  startRunSpan,
  startStepSpan,
  workflowRunContext,
} from './live-spans.js';
export type {
  AgentSpanInput,
  LiveContext,
  LiveSpan,
  NodeSpanInput,
  RunSpanInput,
  SpanEnd,
  StepSpanInput,
} from './live-spans.js';
export { startNodeAttemptSpans } from './node-attempt-spans.js';
export type { NodeAttemptSpans } from './node-attempt-spans.js';
export { startIngestSpan } from './ingest-span.js';
export type { IngestedFileEvent, IngestSpan, IngestSpanEnd, IngestSpanInput } from './ingest-span.js';
