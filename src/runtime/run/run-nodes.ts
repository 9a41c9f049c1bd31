import type { Project } from '../../store/index.js';
import type { EventLog } from '../../events/index.js';
import type { IngestRoots } from '../../ingest/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import type { Agent } from '../agents/index.js';
import type { GraphNode } from '../graph/index.js';
import { descendantsOf } from '../graph/index.js';
import { nodeTraceOf, performNode, prepareNode, writeAgentUsage } from './node/index.js';
import type { FixNeeded, NodeOutcome, NodeRunContext } from './node/index.js';
import type { RunBudget } from './run-budget.js';
import type { RunOutputLimit } from './run-output-limit.js';
import type { RunRecorder } from './run-recorder.js';
import type { RunStateStore } from './state/index.js';
import { MAX_STATE_FIELD_ERRORS } from '../../runs/index.js';
import type { RunGraphOptions, RunProgress } from './run-types.js';
import type { NodeState } from '../../runs/index.js';
import { scheduleNodes } from './schedule-nodes.js';
import type { RunId } from '../../project/index.js';
import { activeLiveContext, startNodeAttemptSpans } from '../../telemetry/index.js';
import type { LiveContext, NodeAttemptSpans } from '../../telemetry/index.js';

/** Everything the node loop of one run needs. */
export interface RunNodesOptions {
  readonly options: RunGraphOptions;
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly project: Project;
  readonly runId: RunId;
  readonly inputs: Readonly<Record<string, string>>;
  /** Documents of completed nodes; filled in as nodes complete. */
  readonly outputs: Map<string, string>;
  readonly root: ConfinedRoot;
  readonly ingestRoots: IngestRoots;
  /** The run's events (bound to its run_id). */
  readonly events: EventLog;
  readonly store: RunStateStore;
  /** Records each execution's document, ingested files and trace (fail-open). */
  readonly recorder: RunRecorder;
  readonly agents: ReadonlyMap<string, Agent>;
  readonly concurrency: number;
  readonly now: () => Date;
  readonly budget: RunBudget;
  /** The size limits of node documents. */
  readonly outputLimit: RunOutputLimit;
  /** The run's controller: aborted by the caller's signal, a fatal error, or max_minutes running out. */
  readonly controller: AbortController;
  /** The run span's context, every node span's parent (default: the active context). */
  readonly traceContext?: LiveContext;
}

/** How the node loop ended. */
export interface RunNodesOutcome {
  /** The run was aborted through its signal (nodes left pending stay pending for a resume). */
  readonly aborted: boolean;
  /** A failure that stopped the run itself, such as state.json that cannot be written. */
  readonly fatal?: unknown;
}

/** A progress report before the run's counts are added. */
type ProgressEvent = RunProgress extends infer Each
  ? Each extends RunProgress
    ? Omit<Each, 'done' | 'total'>
    : never
  : never;

/** Runs every runnable node of a run to its end, recording each transition in state, events and progress. */
export async function runNodes(run: RunNodesOptions): Promise<RunNodesOutcome> {
  const { options, store, events, budget, controller } = run;
  const stopOnAbort = (): void => {
    controller.abort(options.signal?.reason);
  };
  options.signal?.addEventListener('abort', stopOnAbort, { once: true });
  if (options.signal?.aborted === true) stopOnAbort();
  let fatal: { readonly error: unknown } | undefined;

  const context: NodeRunContext = {
    project: run.project,
    runId: run.runId,
    graph: options.graph,
    inputs: run.inputs,
    outputs: run.outputs,
    root: run.root,
    ingestRoots: run.ingestRoots,
    events,
    ingest: options.ingest,
    recorder: run.recorder,
    budget,
    outputLimit: run.outputLimit,
    env: process.env,
    signal: controller.signal,
  };
  const total = options.graph.nodes.length;
  const progress = (event: ProgressEvent): void => {
    const counts = store.counts();
    const done = counts.completed + counts.failed + counts.skipped;
    options.onProgress?.({ ...event, done, total });
  };

  // Passed explicitly to every node's span: nodes run concurrently, each in its own attempt's context.
  const runContext = run.traceContext ?? activeLiveContext();
  const runOne = async (node: GraphNode): Promise<void> => {
    const spans = startNodeAttemptSpans(runContext, {
      runId: run.runId,
      nodeId: node.id,
      nodeType: node.type,
      attempt: store.node(node.id).attempts + 1,
    });
    try {
      await runOneIn(node, spans);
    } catch (error) {
      spans.fail(error);
      throw error;
    }
  };
  const runOneIn = async (node: GraphNode, spans: NodeAttemptSpans): Promise<void> => {
    const agent = run.agents.get(node.id);
    const prepared = prepareNode(context, node, agent);
    let running: NodeState = {
      status: 'running',
      attempts: store.node(node.id).attempts + 1,
      started_at: run.now().toISOString(),
      ...(agent === undefined ? {} : { agent: agent.name }),
      ...(prepared.ok ? { output_path: prepared.outputPath } : {}),
      ...(prepared.ok && prepared.work.kind === 'agent' ? { prompt_sha256: prepared.work.promptSha256 } : {}),
    };
    store.setNode(node.id, running);
    await store.commit();
    events.write('INFO', 'node.started', {
      node_id: node.id,
      type: node.type,
      attempt: running.attempts,
      ...(running.agent === undefined ? {} : { agent: running.agent }),
      ...(running.output_path === undefined ? {} : { output_path: running.output_path }),
    });
    progress({ type: 'node.started', nodeId: node.id });

    // Monotonic: a wall clock set back mid-node would give a negative duration, which a trace refuses.
    let startedMs = performance.now();
    const traceOf = (outcome: NodeOutcome, finishedAt: string, durationMs: number) =>
      nodeTraceOf({
        runId: run.runId,
        graph: options.graph,
        nodeId: node.id,
        running,
        finishedAt,
        durationMs,
        outcome,
      });
    const onFixNeeded = async (fix: FixNeeded): Promise<void> => {
      const finishedAt = run.now().toISOString();
      await run.recorder.recordTrace(
        traceOf(fix.outcome, finishedAt, Math.round(performance.now() - startedMs)),
      );
      events.write('WARNING', 'node.fix_needed', {
        node_id: node.id,
        contract: node.contract,
        attempt: fix.ask,
        fixes_left: fix.fixesLeft,
        reason: fix.completion.reason,
        errors: fix.completion.errors.slice(0, MAX_STATE_FIELD_ERRORS).map((error) => error.message),
        error_count: fix.completion.errors.length,
      });
      progress({
        type: 'node.fix_needed',
        nodeId: node.id,
        attempt: fix.ask,
        of: budget.maxFixAttempts,
        reason: fix.completion.reason,
      });
      // The re-ask is a new attempt of the node: its own start, prompt hash and trace.
      running = {
        ...running,
        attempts: running.attempts + 1,
        started_at: run.now().toISOString(),
        prompt_sha256: fix.nextPromptSha256,
      };
      startedMs = performance.now();
      spans.next({ status: 'fix_needed', error: fix.completion.reason }, running.attempts);
      store.setNode(node.id, running);
      await store.commit();
    };
    let outcome: NodeOutcome = prepared.ok
      ? await spans.within(() =>
          performNode(context, prepared, {
            onFixNeeded,
            inAttempt: (work) => spans.within(work),
            onAgentUsage: (usage) => {
              if (agent === undefined) return;
              writeAgentUsage(events, { nodeId: node.id, attempt: running.attempts, agent }, usage);
            },
          }),
        )
      : { status: 'failed', code: prepared.code, message: prepared.message };
    // An agent stopped because max_minutes ran out failed for the budget, not for a user's Ctrl-C.
    const exceeded = budget.exceeded();
    if (outcome.status === 'failed' && outcome.code === 'aborted' && exceeded !== undefined) {
      outcome = { status: 'failed', code: 'budget_exceeded', message: exceeded.reason };
    }
    const finishedAt = run.now().toISOString();
    const durationMs = Math.round(performance.now() - startedMs);
    // Before the node is reported done: whoever sees it completed (or failed) also finds its trace.
    await run.recorder.recordTrace(traceOf(outcome, finishedAt, durationMs));
    if (outcome.status === 'completed') {
      run.outputs.set(node.id, outcome.text);
      store.setNode(node.id, {
        ...running,
        status: 'completed',
        finished_at: finishedAt,
        output_path: outcome.outputPath,
        output_sha256: outcome.sha256,
        ...(outcome.ingest === undefined ? {} : { ingest: outcome.ingest }),
        ...(outcome.contract === undefined ? {} : { contract: outcome.contract }),
      });
      await store.commit();
      events.write('INFO', 'node.completed', {
        node_id: node.id,
        output_path: outcome.outputPath,
        bytes: outcome.bytes,
        sha256: outcome.sha256,
        duration_ms: durationMs,
        ...(outcome.ingest === undefined ? {} : { ingest: outcome.ingest }),
        ...(outcome.contract === undefined
          ? {}
          : {
              contract: {
                type: outcome.contract.type,
                artifact: outcome.contract.artifact,
                attempts: outcome.contract.attempts,
              },
            }),
      });
      progress({
        type: 'node.completed',
        nodeId: node.id,
        ...(outcome.ingest === undefined ? {} : { ingest: outcome.ingest }),
      });
      spans.end({ status: 'completed' });
      return;
    }
    const error = { code: outcome.code, message: outcome.message };
    store.setNode(node.id, {
      ...running,
      status: 'failed',
      finished_at: finishedAt,
      error,
      ...(outcome.contract === undefined ? {} : { contract: outcome.contract }),
    });
    await store.commit();
    if (outcome.contract?.state === 'blocked') {
      events.write('WARNING', 'node.blocked', {
        node_id: node.id,
        contract: outcome.contract.type,
        reason: outcome.contract.reason ?? outcome.message,
        artifact: outcome.contract.artifact ?? null,
      });
    }
    events.write('ERROR', 'node.failed', { node_id: node.id, ...error, duration_ms: durationMs });
    spans.end({ status: 'failed', error: `${outcome.code}: ${outcome.message}` });
    progress({ type: 'node.failed', nodeId: node.id, message: outcome.message });
    // A budget stops the run's scheduling: its dependents stay pending, for a resume with a larger budget.
    if (outcome.code !== 'budget_exceeded') await skipDependents(run, node.id);
  };

  try {
    await scheduleNodes({
      graph: options.graph,
      concurrency: run.concurrency,
      statusOf: (nodeId) => store.node(nodeId).status,
      stopped: () => controller.signal.aborted || budget.exceeded() !== undefined,
      run: (node) =>
        runOne(node).catch((error: unknown) => {
          // The run cannot go on without recording it: stop the other nodes and report this one error.
          fatal ??= { error };
          controller.abort(error);
        }),
    });
  } finally {
    options.signal?.removeEventListener('abort', stopOnAbort);
  }
  return fatal === undefined
    ? { aborted: controller.signal.aborted }
    : { aborted: controller.signal.aborted, fatal: fatal.error };
}

/** A failed node's pending dependents, direct or not, can never run in this run: they are skipped. */
async function skipDependents(run: RunNodesOptions, failedId: string): Promise<void> {
  for (const id of descendantsOf(run.options.graph, [failedId])) {
    const previous = run.store.node(id);
    if (previous.status !== 'pending') continue;
    const message = `not run: node ${failedId}, which it depends on, failed`;
    run.store.setNode(id, {
      status: 'skipped',
      attempts: previous.attempts,
      error: { code: 'dependency_failed', message },
    });
    await run.store.commit();
    run.events.write('WARNING', 'node.skipped', {
      node_id: id,
      code: 'dependency_failed',
      failed_dependency: failedId,
      message,
    });
  }
}
