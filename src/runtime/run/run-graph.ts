import { isProject, openProject, projectDirOf, StoreError, usingProject } from '../../store/index.js';
import type { Project, ProjectRef, ProjectStore } from '../../store/index.js';
import path from 'node:path';
import { openRunEventLog, redactSecrets } from '../../events/index.js';
import type { EventEntry, EventLog } from '../../events/index.js';
import { startRunPush } from '../../fleet/index.js';
import type { RunPush } from '../../fleet/index.js';
import { openIngestRoots } from '../../ingest/index.js';
import type { SharedIngestRoots } from '../../ingest/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import type { Agent } from '../agents/index.js';
import {
  checkNewRunInputs,
  checkResumeGraph,
  checkResumeInputs,
  checkRunOptions,
  resolveAgents,
} from './check-run-options.js';
import { defaultRunId } from './default-run-id.js';
import { endRun } from './end-run.js';
import { findNodeEventGaps } from './find-node-event-gaps.js';
import { effectiveBudgets, startRunBudget } from './run-budget.js';
import { DEFAULT_MAX_RUN_DOCUMENT_BYTES, startRunOutputLimit } from './run-output-limit.js';
import type { RunBudget } from './run-budget.js';
import { acquireRunLock, readRunState, createRunStateStore } from './state/index.js';
import type { RunLock } from './state/index.js';
import { planNewRun, planResume } from './plan-resume.js';
import type { StartPlan } from './plan-resume.js';
import { RunError } from './run-error.js';
import { runNodes } from './run-nodes.js';
import { openRunRecorder } from './run-recorder.js';
import type { RunRecorder } from './run-recorder.js';
import type { RunGraphOptions, RunResult } from './run-types.js';
import { describeError, parseRunId, runStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { DEFAULT_INGEST_LIMITS } from '../../config/index.js';
import { resolveRunHost } from '../../runs/index.js';
import { startRunSpan } from '../../telemetry/index.js';
import type { LiveContext, SpanEnd } from '../../telemetry/index.js';

/** What a run starts from, once its options are checked. */
interface RunStart {
  readonly runId: RunId;
  readonly inputs: Readonly<Record<string, string>>;
  readonly createdAt: string;
  /** The machine that created the run; undefined for a resumed run made before runs recorded their host. */
  readonly host: string | undefined;
  readonly plan: StartPlan;
  /** Agent calls made by earlier invocations of the run (max_agent_calls counts the whole run). */
  readonly agentCallsBefore: number;
  /** Ending events of nodes a killed invocation ended without appending them, derived from its state (D89). */
  readonly lostEvents: readonly EventEntry[];
}

/**
 * Runs (or, with `resume`, continues) a graph in `.agent/runs/<run_id>/`: nodes whose dependencies are
 * done run concurrently, each node transition is one fsynced line of transitions.jsonl (state.json is
 * written whole at the start and the end), and each written
 * document goes through the post-write ingest hook when it is enabled. Every node execution is recorded as
 * artifacts (its document as a `message`, the files its ingest placed, a `trace`), fail-open. Throws ConfigError or RunError
 * before anything is written when the options, inputs or resumed state do not allow the run.
 */
export async function runGraph(options: RunGraphOptions): Promise<RunResult> {
  const concurrency = checkRunOptions(options);
  options.signal?.throwIfAborted();
  const now = options.now ?? (() => new Date());
  // A folder's files store is opened (and closed) here; a Project's store is its owner's.
  const project = isProject(options.projectDir)
    ? options.projectDir
    : openProject(path.resolve(options.projectDir));
  const projectDir = path.resolve(project.dir);
  const runId =
    options.runId === undefined ? defaultRunId(options.graph.name, now()) : parseRunId(options.runId);

  // Everything that can refuse the run is checked before the first write (lock, folder, state, events).
  const planned = await planStart(options, project, runId, now);
  const agents = resolveAgents(options, nodesToRun(planned.plan));

  const root = await openConfinedRoot(projectDir, { create: true });
  let lock: RunLock | undefined;
  let eventLog: EventLog | undefined;
  let recorder: RunRecorder | undefined;
  let session: ProjectStore | undefined;
  let pusher: RunPush | undefined;
  // One workspace root for every node's ingest, opened on the first write.
  const ingestRoots = openIngestRoots(projectDir);
  try {
    lock = await acquireRunLock(project, runId, now());
    // The lock makes this read authoritative: a runner that died after planStart may have gone further.
    const start = await planStart(options, project, runId, now);
    const unresolved = new Set([...nodesToRun(start.plan)].filter((id) => !agents.has(id)));
    const allAgents = new Map<string, Agent>([...agents, ...resolveAgents(options, unresolved)]);
    // The run's own calls (state, transitions, events, manifests) go through a session of the store: it keeps the
    // run's folder open, so each call walks one level or none instead of `.agent/runs/<run_id>` from the project.
    session = await project.store.openSession();
    const running = openProject(project.dir, { store: session });
    eventLog = await openRunEventLog(running, runId);
    // Local first: the run writes .agent/ as always; a remote gets what it kept in the background.
    pusher =
      options.remote === undefined
        ? undefined
        : await startRunPush({
            project,
            remote: options.remote,
            runId,
            events: eventLog.child({ run_id: runId }),
          });
    // What the killed invocation's state says ended goes into the events first, marked recovered.
    eventLog.child({ run_id: runId }).writeAll(start.lostEvents);
    // One recorder per run: its calls are serialized, so `previous` links between this run's nodes are exact.
    recorder = openRunRecorder({
      project: running,
      runId,
      events: eventLog.child({ run_id: runId }),
      now,
      // Objects are workspace contents under another name: they follow the ingest's durability.
      durability: options.ingest?.durability ?? 'fsync',
    });
    return await execute(
      pusher === undefined ? options : withPushAtNodeEnds(options, pusher),
      {
        project: running,
        root,
        ingestRoots,
        lock,
        concurrency,
        now,
        agents: allAgents,
        recorder,
      },
      start,
      eventLog,
    );
  } finally {
    await recorder?.close();
    await pusher?.finish();
    if (eventLog !== undefined) await closeEvents(eventLog);
    await session?.close();
    await lock?.release();
    await ingestRoots.close();
    if (project !== options.projectDir) await project.store.close();
    await root.close();
  }
}

async function planStart(
  options: RunGraphOptions,
  project: ProjectRef,
  runId: RunId,
  now: () => Date,
): Promise<RunStart> {
  const projectDir = projectDirOf(project);
  // Checked on a resume too, which keeps the creating host: a bad value never waits for the next new run.
  const host = resolveRunHost(options.env);
  if (options.resume === true) {
    const earlier = await readRunState(project, runId);
    checkResumeGraph(earlier, options.graph);
    checkResumeInputs(earlier, options.inputs);
    return {
      runId,
      inputs: earlier.inputs,
      createdAt: earlier.created_at,
      host: earlier.host,
      plan: await planResume(projectDir, options.graph, earlier),
      agentCallsBefore: earlier.budgets?.agent_calls ?? 0,
      lostEvents: (await findNodeEventGaps(project, earlier)).map((gap) => gap.derived),
    };
  }
  checkNewRunInputs(options.graph, options.inputs);
  if (await hasStoredState(project, runId)) {
    throw new RunError(
      'run_exists',
      `run ${runId} already exists (${runStatePath(runId)}); resume it, or pass another run id`,
    );
  }
  return {
    runId,
    inputs: { ...options.inputs },
    createdAt: now().toISOString(),
    host,
    plan: planNewRun(options.graph),
    agentCallsBefore: 0,
    lostEvents: [],
  };
}

interface RunEnvironment {
  /** The project (its store keeps the run); `projectDir` is resolved into it once, here at the edge. */
  readonly project: Project;
  /** The project's live tree (docs/, workspace/): the run writes its documents through it. */
  readonly root: ConfinedRoot;
  readonly ingestRoots: SharedIngestRoots;
  readonly lock: RunLock;
  readonly concurrency: number;
  readonly now: () => Date;
  readonly agents: ReadonlyMap<string, Agent>;
  readonly recorder: RunRecorder;
}

async function execute(
  options: RunGraphOptions,
  environment: RunEnvironment,
  start: RunStart,
  eventLog: EventLog,
): Promise<RunResult> {
  const startedMs = Date.now();
  const controller = new AbortController();
  const budget = startRunBudget({
    budgets: effectiveBudgets(options.graph.budgets, options.budgets),
    agentCallsBefore: start.agentCallsBefore,
    onMinutesOut: (exceeded) => {
      controller.abort(new Error(exceeded.reason));
    },
  });
  // The run's root span (no parent): its nodes' spans are children of it, a no-op unless an SDK is registered.
  const runSpan = startRunSpan({ runId: start.runId, graph: options.graph.name, host: start.host });
  try {
    const result = await runSpan.within(() =>
      executeWithin(options, environment, start, eventLog, {
        controller,
        budget,
        startedMs,
        traceId: runSpan.traceId,
        traceContext: runSpan.context,
      }),
    );
    runSpan.end(runSpanEndOf(result));
    return result;
  } catch (error) {
    runSpan.fail(error);
    throw error;
  } finally {
    budget.dispose();
  }
}

/** The root span's end: the run's status, and the nodes that did not complete when it failed. */
function runSpanEndOf(result: RunResult): SpanEnd {
  if (result.status === 'completed') return { status: result.status };
  const unfinished = Object.entries(result.state.nodes)
    .filter(([, node]) => node.status !== 'completed')
    .map(([id, node]) => `${id} (${node.status})`);
  const more = unfinished.length > 10 ? ` and ${String(unfinished.length - 10)} more` : '';
  return {
    status: result.status,
    error: `nodes not completed: ${unfinished.slice(0, 10).join(', ')}${more}`,
  };
}

async function executeWithin(
  options: RunGraphOptions,
  environment: RunEnvironment,
  start: RunStart,
  eventLog: EventLog,
  invocation: {
    readonly controller: AbortController;
    readonly budget: RunBudget;
    readonly startedMs: number;
    /** The live trace id, when an OpenTelemetry SDK records the run's spans: `run.started` names it. */
    readonly traceId: string | undefined;
    /** The run span's context: the parent of every node's span. */
    readonly traceContext: LiveContext;
  },
): Promise<RunResult> {
  const { graph } = options;
  const { runId, plan } = start;
  const { controller, budget, startedMs } = invocation;
  const events = eventLog.child({ run_id: runId });
  const ingestEnabled = options.ingest?.enabled === true;
  const store = createRunStateStore(
    { store: environment.project.store },
    {
      version: 1,
      run_id: runId,
      ...(start.host === undefined ? {} : { host: start.host }),
      graph: { name: graph.name, hash: graph.hash, source: graph.source },
      mode: graph.mode,
      inputs: start.inputs,
      ingest_enabled: ingestEnabled,
      created_at: start.createdAt,
    },
    plan.nodes,
    environment.now,
    () => budget.state(),
  );

  try {
    // The run's one full write at its start: the transitions that follow are one log line each.
    await store.compact();
    events.write('INFO', 'run.started', {
      graph: graph.name,
      graph_hash: graph.hash,
      graph_source: graph.source,
      graph_version: graph.version,
      inputs: Object.keys(start.inputs),
      mode: graph.mode,
      ingest_enabled: ingestEnabled,
      resumed: options.resume === true,
      concurrency: environment.concurrency,
      nodes: graph.nodes.length,
      kept: plan.outputs.size,
      budgets: budget.state(),
      ...(invocation.traceId === undefined ? {} : { trace_id: invocation.traceId }),
    });
    const { tookOver } = environment.lock;
    if (tookOver !== undefined) {
      events.write('WARNING', 'run.lock_taken_over', {
        lock_path: environment.lock.path,
        previous_pid: tookOver.pid,
        previous_hostname: tookOver.hostname,
        previous_started_at: tookOver.started_at,
      });
    }
    for (const rerun of plan.reruns) {
      events.write('WARNING', 'node.rerun', {
        node_id: rerun.nodeId,
        reason: rerun.reason,
        output_path: rerun.outputPath,
      });
    }

    const outcome = await runNodes({
      options,
      project: environment.project,
      runId,
      inputs: start.inputs,
      outputs: new Map(plan.outputs),
      root: environment.root,
      ingestRoots: environment.ingestRoots,
      events,
      store,
      recorder: environment.recorder,
      agents: environment.agents,
      concurrency: environment.concurrency,
      now: environment.now,
      budget,
      outputLimit: startRunOutputLimit({
        maxDocumentBytes: options.ingest?.limits?.maxDocumentBytes ?? DEFAULT_INGEST_LIMITS.maxDocumentBytes,
        maxRunDocumentBytes: options.maxRunDocumentBytes ?? DEFAULT_MAX_RUN_DOCUMENT_BYTES,
        bytesBefore: [...plan.outputs.values()].reduce(
          (sum, text) => sum + Buffer.byteLength(text, 'utf8'),
          0,
        ),
      }),
      controller,
      traceContext: invocation.traceContext,
    });

    const counts = store.counts();
    if (outcome.fatal !== undefined) {
      const { fatal } = outcome;
      events.write('ERROR', 'run.failed', {
        reason: fatal instanceof RunError ? fatal.code : 'internal_error',
        message: describeError(fatal),
        nodes: counts,
        duration_ms: Date.now() - startedMs,
      });
      throw fatal instanceof Error ? fatal : new Error(describeError(fatal));
    }
    return await endRun({
      project: environment.project,
      root: environment.root,
      runId,
      graph,
      events,
      store,
      aborted: outcome.aborted,
      budget,
      startedMs,
      now: environment.now,
      ...(options.gitExport === undefined ? {} : { gitExport: options.gitExport }),
    });
  } finally {
    await store.close();
  }
}

/** The options with a progress callback that also starts a push each time a node ends. */
function withPushAtNodeEnds(options: RunGraphOptions, pusher: RunPush): RunGraphOptions {
  const { onProgress } = options;
  return {
    ...options,
    onProgress: (progress) => {
      if (progress.type === 'node.completed' || progress.type === 'node.failed') pusher.nodeEnded();
      onProgress?.(progress);
    },
  };
}

function nodesToRun(plan: StartPlan): ReadonlySet<string> {
  return new Set([...plan.nodes].filter(([, state]) => state.status !== 'completed').map(([id]) => id));
}

/**
 * Whether the run has a state.json in the project's store; what the store will not read there (a symlinked run
 * folder, a symlink or a FIFO at state.json) is {@link RunError} `run_dir_unusable`, never written over.
 */
async function hasStoredState(project: ProjectRef, runId: RunId): Promise<boolean> {
  try {
    return (await usingProject(project, ({ store }) => store.info(runStatePath(runId)))) !== undefined;
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    throw new RunError('run_dir_unusable', `run ${runId} cannot be started: ${error.message}`, {
      cause: error,
    });
  }
}

async function closeEvents(eventLog: EventLog): Promise<void> {
  try {
    await eventLog.close();
  } catch (error) {
    // Fail-open (spec ingest.md section 6): a broken event log never fails the run.
    process.stderr.write(`artifact-ingest: could not flush events: ${redactSecrets(describeError(error))}\n`);
  }
}
