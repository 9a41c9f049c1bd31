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
