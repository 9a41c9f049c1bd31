import type { NodeId, RunId } from './ids.js';

// The on-disk layout of a project (spec ingest.md, "Project layout"): every path is project-relative and
// POSIX-style; callers join it onto the project root. Nothing else spells these folders out.

/** The optional config file at the project root. */
export const PROJECT_CONFIG_FILE = 'artifact-ingest.config.yaml';
/** Documents written by graph nodes and workflow steps: the ingest's input. */
export const DOCS_DIR = 'docs';
/** The project's own workflow definitions, `workflows/<name>.yaml`. */
export const WORKFLOWS_DIR = 'workflows';
/** Audit documents (not ingested). */
export const AUDITS_DIR = 'audits';
/** Files extracted from documents: written by the ingest only. */
export const WORKSPACE_DIR = 'workspace';
/** Everything the product keeps about runs. */
export const AGENT_DIR = '.agent';
/** One folder per run. */
export const RUNS_DIR = `${AGENT_DIR}/runs`;
/** The content-addressed object store. */
export const OBJECTS_DIR = `${AGENT_DIR}/objects`;
/** Indexes rebuilt from the runs (`reindex`). */
export const INDEX_DIR = `${AGENT_DIR}/index`;
/** The path index: one file of versions per recorded path. */
export const PATH_INDEX_DIR = `${INDEX_DIR}/paths`;
/** The run-order index: one line per run, its id and its first record's `createdAt`. */
export const RUN_ORDER_INDEX_PATH = `${INDEX_DIR}/runs.jsonl`;
/** The history index: the workspace versions of every run in append order, in segments with per-path heads. */
export const HISTORY_INDEX_DIR = `${INDEX_DIR}/history`;
/** The short lock the history index is appended and rolled under. */
export const HISTORY_LOCK_PATH = `${INDEX_DIR}/history.lock`;
/** Contract artifacts (seed 004), one folder per run. */
export const CONTRACT_ARTIFACTS_DIR = `${AGENT_DIR}/artifacts`;
/** The file list of a run bundle, inside the archive. */
export const BUNDLE_MANIFEST_PATH = `${AGENT_DIR}/bundle.json`;
/** The top folders a recorded path may start with. */
export const RECORD_TOP_FOLDERS: readonly string[] = Object.freeze([
  WORKSPACE_DIR,
  DOCS_DIR,
  AUDITS_DIR,
  AGENT_DIR,
]);

/** `.agent/runs/<run_id>`. */
export function runDir(runId: RunId): string {
  return `${RUNS_DIR}/${runId}`;
}

/** `.agent/runs/<run_id>/state.json`: runtime and workflow state. */
export function runStatePath(runId: RunId): string {
  return `${runDir(runId)}/state.json`;
}

/**
 * `.agent/runs/<run_id>/transitions.jsonl`: a graph run's node transitions since its state.json was last
 * written, one fsynced line each (docs/runtime-runs.md, "The transition log").
 */
export function runTransitionsPath(runId: RunId): string {
  return `${runDir(runId)}/transitions.jsonl`;
}

/** `.agent/runs/<run_id>/events.jsonl`: the run's event log. */
export function runEventsPath(runId: RunId): string {
  return `${runDir(runId)}/events.jsonl`;
}

/** `.agent/runs/<run_id>/manifests`. */
export function runManifestsDir(runId: RunId): string {
  return `${runDir(runId)}/manifests`;
}

/** `.agent/runs/<run_id>/manifests/<node_id>.json`: manifest v1 of one node's document. */
export function manifestPath(runId: RunId, nodeId: NodeId): string {
  return `${runManifestsDir(runId)}/${nodeId}.json`;
}

/** `.agent/runs/<run_id>/artifacts.jsonl`: the run's artifact records. */
export function artifactRecordsPath(runId: RunId): string {
  return `${runDir(runId)}/artifacts.jsonl`;
}

/** `.agent/runs/<run_id>/traces/<node_id>.json`: where a node's trace record says it lives. */
export function tracePath(runId: RunId, nodeId: NodeId): string {
  return `${runDir(runId)}/traces/${nodeId}.json`;
}

/** `.agent/workspace.lock`: held by an ingest from its first write into workspace/ to the end of its records. */
export const WORKSPACE_LOCK_PATH = `${AGENT_DIR}/workspace.lock`;

/** `.agent/runs/<run_id>/lock`: held by the process running or resuming the run. */
export function runLockPath(runId: RunId): string {
  return `${runDir(runId)}/lock`;
}

/** `.agent/runs/<run_id>/submit.lock`: held for the milliseconds of one contract submission. */
export function submitLockPath(runId: RunId): string {
  return `${runDir(runId)}/submit.lock`;
}

/** `.agent/watch/<run_id>.json`: the sha256 of each document `watch` last ingested into the run. */
export function watchStatePath(runId: RunId): string {
  return `${AGENT_DIR}/watch/${runId}.json`;
}

/** `.agent/runs/<run_id>/terminal.json`: the one terminal state a run ended in (seed 004). */
export function terminalStatePath(runId: RunId): string {
  return `${runDir(runId)}/terminal.json`;
}

/** `.agent/objects/sha256/<2 hex>/<62 hex>`: one stored content, by its hex sha256. */
export function objectPath(sha256Hex: string): string {
  return `${OBJECTS_DIR}/sha256/${sha256Hex.slice(0, 2)}/${sha256Hex.slice(2)}`;
}

/** `<2 hex>/<62 hex>.jsonl`: where below {@link PATH_INDEX_DIR} the versions of one path live, by its sha256. */
export function pathIndexEntry(pathSha256Hex: string): string {
  return `${pathSha256Hex.slice(0, 2)}/${pathSha256Hex.slice(2)}.jsonl`;
}

/** `.agent/index/paths/<2 hex>/<62 hex>.jsonl`: the versions of one recorded path, fanned out as objects are. */
export function pathIndexFile(pathSha256Hex: string): string {
  return `${PATH_INDEX_DIR}/${pathIndexEntry(pathSha256Hex)}`;
}

/** `.agent/artifacts/<run_id>/<type>.json`: one contract artifact of a run (seed 004). */
export function contractArtifactPath(runId: RunId, type: string): string {
  return `${CONTRACT_ARTIFACTS_DIR}/${runId}/${type}.json`;
}

/** `docs/<run_id>`: where a workflow run's step documents go. */
export function runDocsDir(runId: RunId): string {
  return `${DOCS_DIR}/${runId}`;
}

/** `workspace/<path>` for a normalized workspace-relative path. */
export function workspacePath(relative: string): string {
  return `${WORKSPACE_DIR}/${relative}`;
}
