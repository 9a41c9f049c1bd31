import { describeSchemaIssues } from '../../../config/index.js';
import {
  describeError,
  runDir,
  runStatePath,
  runTransitionsPath,
  sha256Hex,
  UnknownRunError,
} from '../../../project/index.js';
import { redactJson } from '../../../project/index.js';
import type { RunId } from '../../../project/index.js';
import { StoreError, usingProject } from '../../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../../store/index.js';
import { RunError } from '../run-error.js';
import { applyRunTransitions } from './run-transitions.js';
import { runStateSchema } from '../../../runs/index.js';
import type { RunState } from '../../../runs/index.js';

export {
  nodeContractStateSchema,
  nodeIngestSummarySchema,
  nodeStateSchema,
  runBudgetsStateSchema,
  runStateSchema,
} from '../../../runs/index.js';

/**
 * Reads and checks a run's state: state.json with the lines of its transition log applied (the one reader of
 * a graph run's state, see {@link resolveRunState}); throws {@link UnknownRunError} when the run's folder does
 * not exist,
 * {@link RunError} `not_a_graph_run` when the folder holds no state.json (a CLI ingest's run), and
 * {@link RunError} `state_unreadable` naming the file when it cannot be read or is invalid.
 */
export async function readRunState(project: ProjectRef, runId: RunId): Promise<RunState> {
  return usingProject(project, ({ store }) => readStoredRunState(store, runId));
}

async function readStoredRunState(store: ProjectStore, runId: RunId): Promise<RunState> {
  const relative = runStatePath(runId);
  // The log first: a compaction writes state.json before the log, so this order never pairs a new log with an
  // old state.json (an old log with a new state.json is recognized by its header and ignored).
  const log = await readStoredTransitionLog(store, runId);
  let text: string | undefined;
  try {
    text = await store.readText(relative);
  } catch (error) {
    throw new RunError('state_unreadable', `cannot read ${relative}: ${describeError(error)}`, {
      cause: error,
    });
  }
  if (text === undefined) {
    if ((await store.list(runDir(runId)).catch(() => [])).length === 0) throw new UnknownRunError(runId);
    throw new RunError(
      'not_a_graph_run',
      `run ${runId} has no ${relative}: it was made by 'artifact-ingest ingest', not by a graph, and cannot be resumed; start a new run instead`,
    );
  }
  return resolveRunState(text, relative, log);
}

/**
 * A graph run's state from state.json's text and its transition log's text (undefined when there is none),
 * the log read before state.json: what every reader of a run's state goes through, so a run in flight or
 * killed reads as far as its log went.
 */
export function resolveRunState(stateText: string, file: string, logText: string | undefined): RunState {
  const state = parseRunState(stateText, file);
  return logText === undefined ? state : applyRunTransitions(state, stateText, logText);
}

/** A run's transitions.jsonl text, or undefined when it has none (a run of an older version, or none yet). */
export async function readTransitionLog(project: ProjectRef, runId: RunId): Promise<string | undefined> {
  return usingProject(project, ({ store }) => readStoredTransitionLog(store, runId));
}

async function readStoredTransitionLog(store: ProjectStore, runId: RunId): Promise<string | undefined> {
  try {
    return await store.readText(runTransitionsPath(runId));
  } catch (error) {
    // No run folder at all (a file in its place): no log, and state.json's read says what is wrong.
    if (error instanceof StoreError && error.refusal === 'not_a_directory') return undefined;
    throw new RunError(
      'state_unreadable',
      `cannot read ${runTransitionsPath(runId)}: ${describeError(error)}`,
      { cause: error },
    );
  }
}

/** Parses state.json text; throws {@link RunError} `state_unreadable` naming `file` and every issue. */
export function parseRunState(text: string, file: string): RunState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RunError(
      'state_unreadable',
      `${file} is not valid JSON (${(error as Error).message}); it was not written by this runtime or was edited by hand`,
      { cause: error },
    );
  }
  const checked = runStateSchema.safeParse(json);
  if (!checked.success) {
    const issues = describeSchemaIssues(checked.error.issues);
    throw new RunError('state_unreadable', `${file} is not a valid run state (version 1): ${issues}`);
  }
  return checked.data;
}

/**
 * Writes a run's state.json atomically (temp file + rename, through the store's confined writer); returns the
 * sha256 of the bytes written, which the run's transition log names as its base.
 */
export async function writeRunState(
  store: ProjectStore,
  state: RunState,
  durability: 'fsync' | 'none' = 'fsync',
): Promise<string> {
  const relative = runStatePath(state.run_id);
  // Errors, outputs recorded as text and inputs are redacted (docs/security.md, "Secrets").
  const bytes = new TextEncoder().encode(`${JSON.stringify(redactJson(state), null, 2)}\n`);
  try {
    await store.replace(relative, bytes, { durability });
  } catch (error) {
    if (error instanceof StoreError && error.code === 'write_refused') {
      throw new RunError(
        'state_write_failed',
        `${relative} was not written: ${error.refusal ?? error.code}: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
  return sha256Hex(bytes);
}
