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
export {
  activeLiveContext,
  startAgentSpan,
  startNodeSpan,
  startRunSpan,
  startStepSpan,
  workflowRunContext,
} from './live-spans.js';
export type {
  AgentCallUsage,
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
