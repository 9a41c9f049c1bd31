import { createRequire } from 'node:module';
import type * as OpenTelemetryApi from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { describeError, lazyModule, redactSecrets } from '../project/index.js';
import {
  agentSpanName,
  ATTR,
  GEN_AI,
  INVOKE_AGENT,
  nodeSpanName,
  runSpanName,
  spanIdOf,
  stepSpanName,
  traceIdOfRun,
  TRACER_NAME,
} from './span-tree.js';
import type { AgentCallUsage } from './recorded-run.js';

/**
 * Live spans (spec git-and-traces.md, "Traces": Live) through `@opentelemetry/api` alone, as a library instruments
 * itself: every span comes from `trace.getTracer(TRACER_NAME, version)`, which is a no-op unless the host
 * application registered an OpenTelemetry SDK. Nothing here throws into the run: a span is bookkeeping.
 */

/** The OpenTelemetry context a span runs in; opaque to the callers, who only hand it on. */
export type LiveContext = Context;

/** How a span ended: our `artifact.status`, and for a failure the error's message (redacted here). */
export interface SpanEnd {
  readonly status: string;
  readonly error?: string;
}

/** One live span: ended once (later ends are ignored), whatever path its work took. */
export interface LiveSpan {
  /** The context whose active span is this one: the parent of the spans started within it. */
  readonly context: LiveContext;
  /** Runs `work` with this span active, so spans started inside (an agent call, an ingest) are its children. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Adds attributes (undefined values are left out). */
  set(attributes: Readonly<Record<string, string | number | undefined>>): void;
  /** Adds a span event (undefined values are left out). */
  event(name: string, attributes: Readonly<Record<string, string | number | undefined>>): void;
  /** Ends the span: `artifact.status`, and ERROR with the redacted message when `error` is given. */
  end(ended: SpanEnd): void;
  /** Ends the span as failed with a thrown error's message (redacted). */
  fail(error: unknown): void;
  /** The live trace id when an SDK records this span; undefined under the API's no-op. */
  readonly traceId: string | undefined;
  /** Whether an SDK records this span (false under the no-op): callers skip building what only it would keep. */
  readonly recording: boolean;
}

/**
 * The API, loaded on the first span (D76): a command that runs nothing (`runs --help`) never pays for it. The API
 * keeps its registry on the global object, so this instance sees the SDK the host registered through its own.
 */
export const otel = lazyModule<typeof OpenTelemetryApi>('@opentelemetry/api');

let version: string | undefined;

/** The package's version, the instrumentation scope's (`trace.getTracer(name, version)`). */
function tracerVersion(): string {
  // require() of JSON: the package's own manifest, read once; src/telemetry and dist/telemetry are both 2 deep.
  version ??= (createRequire(import.meta.url)('../../package.json') as { readonly version: string }).version;
  return version;
}

function tracer(): Tracer {
  // Asked each time: the global provider is a proxy, so a host that registers its SDK late is still heard.
  return otel().trace.getTracer(TRACER_NAME, tracerVersion());
}

function liveSpanOf(span: Span, parent: Context): LiveSpan {
  let ended = false;
  const spanContext = span.spanContext();
  const { context, isSpanContextValid, SpanStatusCode, trace } = otel();
  const active = trace.setSpan(parent, span);
  const recording = span.isRecording();
  const end = (done: SpanEnd): void => {
    if (ended) return;
    ended = true;
    span.setAttribute(ATTR.status, done.status);
    if (done.error !== undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: redactSecrets(done.error) });
    }
    span.end();
  };
  return {
    context: active,
    within: (work) => context.with(active, work),
    set: (attributes) => {
      if (recording) span.setAttributes(definedOnly(attributes));
    },
    event: (name, attributes) => {
      if (recording) span.addEvent(name, definedOnly(attributes));
    },
    end,
    fail: (error) => {
      end({ status: 'failed', error: describeError(error) });
    },
    traceId: recording && isSpanContextValid(spanContext) ? spanContext.traceId : undefined,
    recording,
  };
}

function definedOnly(attributes: Readonly<Record<string, string | number | undefined>>): Attributes {
  const defined: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined) defined[key] = value;
  return defined;
}

/** Starts a span under `parent` (or, with `root`, with none) through the global tracer. */
export function startSpan(
  name: string,
  attributes: Readonly<Record<string, string | number | undefined>>,
  parent: Context,
  options: { readonly root?: boolean; readonly startTime?: Date } = {},
): LiveSpan {
  const span = tracer().startSpan(
    name,
    {
      attributes: definedOnly(attributes),
      ...(options.root === true ? { root: true } : {}),
      ...(options.startTime === undefined ? {} : { startTime: options.startTime }),
    },
    parent,
  );
  return liveSpanOf(span, parent);
}

/** What the root span of a graph run says about it. */
export interface RunSpanInput {
  readonly runId: string;
  readonly graph: string;
  readonly host: string | undefined;
}

/**
 * The root span of a graph run (spec: one per run, no parent): the caller runs the run {@link LiveSpan.within} it
 * and ends it with the run's status.
 */
export function startRunSpan(run: RunSpanInput): LiveSpan {
  return startSpan(
    runSpanName(run.runId),
    { [ATTR.runId]: run.runId, [ATTR.runKind]: 'graph', [ATTR.graph]: run.graph, [ATTR.host]: run.host },
    otel().ROOT_CONTEXT,
    { root: true },
  );
}

/** One attempt of one graph node. */
export interface NodeSpanInput {
  readonly runId: string;
  readonly nodeId: string;
  readonly nodeType: string;
  readonly attempt: number;
}

/**
 * The span of one attempt of a node, a child of `parent` (the run's context, passed explicitly: nodes run
 * concurrently, so the active context at the call is not to be trusted).
 */
export function startNodeSpan(parent: LiveContext, node: NodeSpanInput): LiveSpan {
  return startSpan(
    nodeSpanName(node.nodeId),
    {
      [ATTR.runId]: node.runId,
      [ATTR.nodeId]: node.nodeId,
      [ATTR.nodeType]: node.nodeType,
      [ATTR.attempt]: node.attempt,
    },
    parent,
  );
}

/** The context the runtime is running in now (the run's, inside {@link LiveSpan.within}). */
export function activeLiveContext(): LiveContext {
  return otel().context.active();
}

/** One agent call, under the active span (the node attempt's). */
export interface AgentSpanInput {
  readonly agentId: string;
  readonly agentName: string;
  /** `gen_ai.provider.name`: the API the agent speaks (`openai`), when it speaks one. */
  readonly provider?: string;
  readonly requestModel?: string;
}

/** The GenAI `invoke_agent` span of one agent call, a child of the active span; the caller ends it. */
export function startAgentSpan(agent: AgentSpanInput): LiveSpan & {
  readonly usage: (usage: AgentCallUsage) => void;
} {
  const span = startSpan(
    agentSpanName(agent.agentName),
    {
      [GEN_AI.operationName]: INVOKE_AGENT,
      [GEN_AI.agentId]: agent.agentId,
      [GEN_AI.agentName]: agent.agentName,
      [GEN_AI.providerName]: agent.provider,
      [GEN_AI.requestModel]: agent.requestModel,
    },
    otel().context.active(),
  );
  return {
    ...span,
    usage: (usage) => {
      span.set({
        [GEN_AI.responseModel]: usage.responseModel,
        [GEN_AI.inputTokens]: usage.inputTokens,
        [GEN_AI.outputTokens]: usage.outputTokens,
      });
    },
  };
}

/**
 * The context of a workflow run's trace, made from ids derived from the run: a workflow runs across separate
 * CLI or MCP invocations, so no process holds a run-long root span; each step span is parented on this remote
 * span context instead, so every step of one run joins one trace, the trace `export otlp` gives the run (its root
 * span is `spanIdOf(runId, ['run'])`, which only that export emits).
 */
export function workflowRunContext(runId: string): LiveContext {
  const { ROOT_CONTEXT, trace, TraceFlags } = otel();
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: traceIdOfRun(runId),
    spanId: spanIdOf(runId, ['run']),
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}

/** One pass of one workflow step. */
export interface StepSpanInput {
  readonly runId: string;
  readonly workflow: string;
  readonly stepId: string;
  readonly pass: number;
  /** When the pass started (`step_started_at`): the span covers the pass, not only the call that ends it. */
  readonly startedAt: string;
}

/** The span of one workflow step pass, in the run's derived trace ({@link workflowRunContext}). */
export function startStepSpan(step: StepSpanInput): LiveSpan {
  const startTime = new Date(step.startedAt);
  return startSpan(
    stepSpanName(step.stepId),
    {
      [ATTR.runId]: step.runId,
      [ATTR.runKind]: 'workflow',
      [ATTR.graph]: step.workflow,
      [ATTR.stepId]: step.stepId,
      [ATTR.attempt]: step.pass,
    },
    workflowRunContext(step.runId),
    Number.isNaN(startTime.getTime()) ? {} : { startTime },
  );
}
