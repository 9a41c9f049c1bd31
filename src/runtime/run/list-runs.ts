import path from 'node:path';
import { terminalStateSchema } from '../../contracts/index.js';
import type { TerminalState, TerminalStateName } from '../../contracts/index.js';
import { ingestManifestSchema } from '../../ingest/index.js';
import {
  describeError,
  isRunId,
  runDir,
  runEventsPath,
  runManifestsDir,
  runStatePath,
  terminalStatePath,
  UnknownRunError,
} from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { listRecordedRuns, usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import type { IngestManifest } from '../../ingest/index.js';
import { RunError } from './run-error.js';
import { isRunLocked, readRunState } from './state/index.js';
import { readWorkflowRunHeader } from '../../runs/index.js';
import type { NodeStatus, RunState, RunStatus } from '../../runs/index.js';

/** Node counts of a run, by status, and their total. */
export type NodeCounts = Readonly<Record<NodeStatus | 'total', number>>;

/**
 * What made a run: `runGraph` (it has a state.json), `artifact-ingest ingest --run-id` (manifests only), or
 * the workflow engine (a state.json of `kind: "workflow"`, shown in detail by `artifact-ingest workflow`).
 */
export type RunKind = 'graph' | 'ingest' | 'workflow';

/** One line of `artifact-ingest runs`. */
export interface RunSummary {
  readonly run_id: string;
  readonly kind: RunKind;
  /** The state's status (`aborted`: a workflow stopped by workflow_abort), or `unreadable` (see `error`). */
  readonly status: RunStatus | 'aborted' | 'unreadable';
  /** True when the state says running but no live runner holds the lock: killed, resume it. */
  readonly interrupted: boolean;
  /**
   * The machine that created the run (state.json `host`); absent, like `terminal`, for a run that does not say:
   * made before runs recorded their host, made by an ingest (no state.json), or unreadable.
   */
  readonly host?: string;
  /** Graph or workflow name ('' when unreadable or made by an ingest). */
  readonly graph: string;
  /** ISO times ('' when unreadable); an ingest run's come from its manifests, else its newest event. */
  readonly created_at: string;
  readonly updated_at: string;
  /** An ingest run's nodes are its manifests (completed when readable, failed when not); a workflow's
   * `completed` counts its steps done and its `total` the steps of its pinned definition (0 if unreadable). */
  readonly nodes: NodeCounts;
  /** Why the run is unreadable, naming the file. */
  readonly error?: string;
  /** The terminal state the run declared when it ended (terminal.json); absent while it has not ended. */
  readonly terminal?: TerminalStateName;
}

/** One manifest of a run, as `show` prints it. */
export type RunManifestSummary =
  | {
      readonly node_id: string;
      readonly manifest_path: string;
      readonly doc_path: string;
      readonly mode: IngestManifest['source']['mode'];
      readonly summary: IngestManifest['summary'];
    }
  | { readonly node_id: string; readonly manifest_path: string; readonly error: string };

/** A run as `artifact-ingest show RUN_ID` prints it: a graph run with its state, or an ingest run. */
export type RunDetails =
  | (RunDetailsBase & { readonly kind: 'graph'; readonly state: RunState })
  | (RunDetailsBase & {
      readonly kind: 'ingest';
      readonly run_id: RunId;
      /** An ingest run is done once its command returned. */
      readonly status: 'completed';
      readonly created_at: string;
      readonly updated_at: string;
    });

/** What every run's details hold. */
export interface RunDetailsBase {
  /** Project-relative run folder. */
  readonly runDir: string;
  readonly interrupted: boolean;
  /** The machine that created the run, as in {@link RunSummary.host}; absent when the run does not say. */
  readonly host?: string;
  readonly nodes: NodeCounts;
  /** The terminal state the run declared when it ended; absent while it has not (or before contracts). */
  readonly terminal?: TerminalState;
  /** Manifests under the run's manifests/ folder, in graph order, then by name. */
  readonly manifests: readonly RunManifestSummary[];
}

const NO_NODES: NodeCounts = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, total: 0 };

/**
 * Every run under `.agent/runs/`, oldest first: graph runs (an invalid state is listed as `unreadable`) and
 * the runs of CLI ingests (manifests or events, no state.json).
 */
export async function listRuns(project: ProjectRef): Promise<readonly RunSummary[]> {
  return usingProject(project, listStoredRuns);
}

async function listStoredRuns(project: Project): Promise<readonly RunSummary[]> {
  const runIds = await listRecordedRuns(project);
  const summaries = await Promise.all(
    runIds.map(async (runId) => withTerminal(project, runId, await summarize(project, runId))),
  );
  return summaries
    .filter((summary): summary is RunSummary => summary !== null)
    .sort(
      (a, b) =>
        // Unreadable runs have no created_at: they go last, by id.
        Number(a.status === 'unreadable') - Number(b.status === 'unreadable') ||
        a.created_at.localeCompare(b.created_at) ||
        a.run_id.localeCompare(b.run_id),
    );
}

/**
 * One run's state (or, for an ingest run, its times), counts and manifests; throws {@link UnknownRunError}
 * for a run that does not exist and {@link RunError} naming the file when state.json is invalid.
 */
export async function readRun(project: ProjectRef, runId: string): Promise<RunDetails> {
  return usingProject(project, (opened) => readStoredRun(opened, runId));
}

async function readStoredRun(project: Project, runId: string): Promise<RunDetails> {
  if (!isRunId(runId)) throw new UnknownRunError(runId);
  let state: RunState;
  try {
    state = await readRunState(project, runId);
  } catch (error) {
    if (!(error instanceof RunError && error.code === 'not_a_graph_run')) {
      if ((await readWorkflowRunHeader(project, runId)) !== null) {
        throw new RunError(
          'not_a_graph_run',
          `run ${runId} is a workflow run; see it with 'artifact-ingest workflow status ${runId}' (or 'artifact-ingest replay ${runId}')`,
        );
      }
      throw error;
    }
    const ingest = await readIngestRun(project, runId);
    if (ingest === null) throw new UnknownRunError(runId);
    return {
      kind: 'ingest',
      run_id: runId,
      status: 'completed',
      created_at: ingest.summary.created_at,
      updated_at: ingest.summary.updated_at,
      runDir: runDir(runId),
      interrupted: false,
      nodes: ingest.summary.nodes,
      manifests: ingest.manifests,
    };
  }
  const terminal = await terminalOf(project, runId);
  return {
    kind: 'graph',
    state,
    ...(terminal === undefined ? {} : { terminal }),
    runDir: runDir(runId),
    interrupted: await wasInterrupted(project, state.status, runId),
    ...hostOf(state),
    nodes: countNodes(state),
    manifests: await readManifests(project, runId, Object.keys(state.nodes)),
  };
}

/** A run's terminal.json, or undefined when it has none or it is unreadable (a listing never fails on it). */
async function terminalOf(project: Project, runId: RunId): Promise<TerminalState | undefined> {
  try {
    const text = await project.store.readText(terminalStatePath(runId));
    if (text === undefined) return undefined;
    const parsed = terminalStateSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function withTerminal(
  project: Project,
  runId: RunId,
  summary: RunSummary | null,
): Promise<RunSummary | null> {
  if (summary === null) return null;
  const terminal = await terminalOf(project, runId);
  return terminal === undefined ? summary : { ...summary, terminal: terminal.state };
}

async function summarize(project: Project, runId: RunId): Promise<RunSummary | null> {
  let state: RunState;
  try {
    state = await readRunState(project, runId);
  } catch (error) {
    // A folder without state.json holds the records of a CLI ingest (or nothing yet): not a graph run.
    if (error instanceof RunError && error.code === 'not_a_graph_run') {
      return (await readIngestRun(project, runId))?.summary ?? null;
    }
    // The folder vanished between readdir and read: a run removed meanwhile is not listed.
    if (error instanceof UnknownRunError) return null;
    const workflow = await readWorkflowRunHeader(project, runId);
    if (workflow !== null) {
      return {
        run_id: runId,
        kind: 'workflow',
        status: workflow.status,
        interrupted: false,
        ...hostOf(workflow),
        graph: workflow.workflow,
        created_at: workflow.created_at,
        updated_at: workflow.updated_at,
        nodes: { ...NO_NODES, completed: workflow.stepsDone, total: workflow.stepsTotal },
      };
    }
    return {
      run_id: runId,
      kind: 'graph',
      status: 'unreadable',
      interrupted: false,
      graph: '',
      created_at: '',
      updated_at: '',
      nodes: NO_NODES,
      error: error instanceof Error ? error.message : `${runStatePath(runId)}: ${describeError(error)}`,
    };
  }
  return {
    run_id: state.run_id,
    kind: 'graph',
    status: state.status,
    interrupted: await wasInterrupted(project, state.status, runId),
    ...hostOf(state),
    graph: state.graph.name,
    created_at: state.created_at,
    updated_at: state.updated_at,
    nodes: countNodes(state),
  };
}

/** `{ host }` when the run's state names the machine that created it, else nothing (the key stays absent). */
function hostOf(state: { readonly host?: string }): { readonly host?: string } {
  return state.host === undefined ? {} : { host: state.host };
}

function countNodes(state: RunState): NodeCounts {
  const counts = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, total: 0 };
  for (const node of Object.values(state.nodes)) {
    counts[node.status] += 1;
    counts.total += 1;
  }
  return counts;
}

/** An ingest run's summary and manifests, or null when its folder holds neither a manifest nor an event. */
async function readIngestRun(
  project: Project,
  runId: RunId,
): Promise<{ summary: RunSummary; manifests: RunManifestSummary[] } | null> {
  const read = await readManifestFiles(project, runId, []);
  const eventsTime = await modifiedAt(project, runEventsPath(runId));
  if (read.length === 0 && eventsTime === null) return null;
  // ISO times of one format sort as text.
  const times = read.flatMap((manifest) => (manifest.ts === undefined ? [] : [manifest.ts])).sort();
  const readable = times.length;
  const manifests = read.map((manifest) => manifest.entry);
  return {
    summary: {
      run_id: runId,
      kind: 'ingest',
      status: 'completed',
      interrupted: false,
      graph: '',
      created_at: times[0] ?? eventsTime ?? '',
      updated_at: times.at(-1) ?? eventsTime ?? '',
      nodes: {
        ...NO_NODES,
        completed: readable,
        failed: manifests.length - readable,
        total: manifests.length,
      },
    },
    manifests,
  };
}

/** When a stored file was last written (ISO), or null when it is missing, empty or not a file. */
async function modifiedAt(project: Project, key: string): Promise<string | null> {
  try {
    const info = await project.store.info(key);
    return info !== undefined && info.size > 0 ? new Date(info.modifiedMs).toISOString() : null;
  } catch {
    return null;
  }
}

async function readManifests(
  project: Project,
  runId: RunId,
  nodeOrder: readonly string[],
): Promise<RunManifestSummary[]> {
  return (await readManifestFiles(project, runId, nodeOrder)).map((manifest) => manifest.entry);
}

/** A manifest's summary, and its `ts` when it is a valid manifest. */
interface ReadManifest {
  readonly entry: RunManifestSummary;
  readonly ts?: string;
}

async function readManifestFiles(
  project: Project,
  runId: RunId,
  nodeOrder: readonly string[],
): Promise<ReadManifest[]> {
  const manifestsDir = runManifestsDir(runId);
  const files = (await project.store.list(manifestsDir))
    .filter((entry) => entry.kind === 'file' && entry.name.endsWith('.json'))
    .map((entry) => entry.name);
  const order = new Map(nodeOrder.map((id, index) => [id, index]));
  const rank = (file: string): number => order.get(file.slice(0, -'.json'.length)) ?? order.size;
  files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Promise.all(files.map((file) => readManifest(project, path.posix.join(manifestsDir, file))));
}

async function readManifest(project: Project, manifestPath: string): Promise<ReadManifest> {
  const nodeId = path.posix.basename(manifestPath, '.json');
  try {
    const manifest = ingestManifestSchema.parse(
      JSON.parse((await project.store.readText(manifestPath)) ?? ''),
    );
    return {
      entry: {
        node_id: manifest.node_id,
        manifest_path: manifestPath,
        doc_path: manifest.source.doc_path,
        mode: manifest.source.mode,
        summary: manifest.summary,
      },
      ts: manifest.ts,
    };
  } catch (error) {
    const why = error instanceof SyntaxError ? 'not valid JSON' : 'not a valid manifest v1';
    return { entry: { node_id: nodeId, manifest_path: manifestPath, error: `${manifestPath} is ${why}` } };
  }
}

/**
 * Whether a run its state calls running has no live runner: no lock held. A remote keeps no run's lock (a lock
 * names a process of the machine that holds it), so a fleet read cannot tell a live run from a killed one and
 * reports what the run's machine last pushed: running, not interrupted (D118).
 */
async function wasInterrupted(project: Project, status: RunStatus, runId: RunId): Promise<boolean> {
  if (status !== 'running' || project.store.kind === 'remote') return false;
  return !(await isRunLocked(project, runId));
}
