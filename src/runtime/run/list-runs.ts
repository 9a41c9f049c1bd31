import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { ingestManifestSchema } from '../../ingest/index.js';
import { isRunId, RUNS_DIR, UnknownRunError } from '../../project/index.js';
import type { IngestManifest } from '../../ingest/index.js';
import { RunError } from './run-error.js';
import { isRunLocked } from './run-lock.js';
import { readRunState, runDirOf, runStatePathOf } from './run-state.js';
import type { NodeStatus, RunState, RunStatus } from './run-types.js';

/** Node counts of a run, by status, and their total. */
export type NodeCounts = Readonly<Record<NodeStatus | 'total', number>>;

/** One line of `artifact-ingest runs`. */
export interface RunSummary {
  readonly run_id: string;
  /** The state's status, or `unreadable` when state.json is not valid (see `error`). */
  readonly status: RunStatus | 'unreadable';
  /** True when the state says running but no live runner holds the lock: killed, resume it. */
  readonly interrupted: boolean;
  /** Graph name ('' when unreadable). */
  readonly graph: string;
  /** ISO times ('' when unreadable). */
  readonly created_at: string;
  readonly updated_at: string;
  readonly nodes: NodeCounts;
  /** Why the run is unreadable, naming the file. */
  readonly error?: string;
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

/** A run as `artifact-ingest show RUN_ID` prints it. */
export interface RunDetails {
  readonly state: RunState;
  /** Project-relative run folder. */
  readonly runDir: string;
  readonly interrupted: boolean;
  readonly nodes: NodeCounts;
  /** Manifests under the run's manifests/ folder, in graph order, then by name. */
  readonly manifests: readonly RunManifestSummary[];
}

const NO_NODES: NodeCounts = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, total: 0 };

/** Every run with a state.json under `.agent/runs/`, oldest first; an invalid state is listed as `unreadable`. */
export async function listRuns(projectDir: string): Promise<readonly RunSummary[]> {
  const runsDir = path.join(projectDir, RUNS_DIR);
  let names: string[];
  try {
    names = (await readdir(runsDir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory() && isRunId(entry.name))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const summaries = await Promise.all(names.map((runId) => summarize(projectDir, runId)));
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

/** One run's state, counts and manifests; throws {@link RunError} naming the file when state.json is missing or invalid. */
export async function readRun(projectDir: string, runId: string): Promise<RunDetails> {
  if (!isRunId(runId)) throw new UnknownRunError(runId);
  const state = await readRunState(projectDir, runId);
  return {
    state,
    runDir: runDirOf(runId),
    interrupted: state.status === 'running' && !(await isRunLocked(projectDir, runId)),
    nodes: countNodes(state),
    manifests: await readManifests(projectDir, state),
  };
}

async function summarize(projectDir: string, runId: string): Promise<RunSummary | null> {
  let state: RunState;
  try {
    state = await readRunState(projectDir, runId);
  } catch (error) {
    // A folder without state.json holds only ingest records (a CLI ingest), not a graph run.
    if (error instanceof RunError && error.code === 'run_not_found') return null;
    return {
      run_id: runId,
      status: 'unreadable',
      interrupted: false,
      graph: '',
      created_at: '',
      updated_at: '',
      nodes: NO_NODES,
      error: error instanceof Error ? error.message : `${runStatePathOf(runId)}: ${String(error)}`,
    };
  }
  return {
    run_id: state.run_id,
    status: state.status,
    interrupted: state.status === 'running' && !(await isRunLocked(projectDir, runId)),
    graph: state.graph.name,
    created_at: state.created_at,
    updated_at: state.updated_at,
    nodes: countNodes(state),
  };
}

function countNodes(state: RunState): NodeCounts {
  const counts = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, total: 0 };
  for (const node of Object.values(state.nodes)) {
    counts[node.status] += 1;
    counts.total += 1;
  }
  return counts;
}

async function readManifests(projectDir: string, state: RunState): Promise<RunManifestSummary[]> {
  const manifestsDir = path.posix.join(runDirOf(state.run_id), 'manifests');
  let files: string[];
  try {
    files = (await readdir(path.join(projectDir, manifestsDir), { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.json'))
      .map((entry) => entry.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const order = new Map(Object.keys(state.nodes).map((id, index) => [id, index]));
  const rank = (file: string): number => order.get(file.slice(0, -'.json'.length)) ?? order.size;
  files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  return Promise.all(files.map((file) => readManifest(projectDir, path.posix.join(manifestsDir, file))));
}

async function readManifest(projectDir: string, manifestPath: string): Promise<RunManifestSummary> {
  const nodeId = path.posix.basename(manifestPath, '.json');
  try {
    const manifest = ingestManifestSchema.parse(
      JSON.parse(await readFile(path.join(projectDir, manifestPath), 'utf8')),
    );
    return {
      node_id: manifest.node_id,
      manifest_path: manifestPath,
      doc_path: manifest.source.doc_path,
      mode: manifest.source.mode,
      summary: manifest.summary,
    };
  } catch (error) {
    const why = error instanceof SyntaxError ? 'not valid JSON' : 'not a valid manifest v1';
    return { node_id: nodeId, manifest_path: manifestPath, error: `${manifestPath} is ${why}` };
  }
}
