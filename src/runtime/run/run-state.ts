import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describeSchemaIssues } from '../../config/index.js';
import {
  describeError,
  runDir,
  runStatePath,
  runTransitionsPath,
  sha256Hex,
  UnknownRunError,
} from '../../project/index.js';
import { redactJson } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { StoreError } from '../../store/index.js';
import type { ProjectStore } from '../../store/index.js';
import { RunError } from './run-error.js';
import { applyRunTransitions } from './run-transitions.js';
import { runStateSchema } from './run-state-schema.js';
import type { RunState } from './run-types.js';
import { readRegularFile } from '../../workspace/index.js';

export {
  nodeContractStateSchema,
  nodeIngestSummarySchema,
  nodeStateSchema,
  runBudgetsStateSchema,
  runStateSchema,
} from './run-state-schema.js';

/**
 * Reads and checks a run's state: state.json with the lines of its transition log applied (the one reader of
 * a graph run's state, see {@link resolveRunState}); throws {@link UnknownRunError} when the run's folder does
 * not exist,
 * {@link RunError} `not_a_graph_run` when the folder holds no state.json (a CLI ingest's run), and
 * {@link RunError} `state_unreadable` naming the file when it cannot be read or is invalid.
 */
export async function readRunState(projectDir: string, runId: RunId): Promise<RunState> {
  const relative = runStatePath(runId);
  // The log first: a compaction writes state.json before the log, so this order never pairs a new log with an
  // old state.json (an old log with a new state.json is recognized by its header and ignored).
  const log = await readTransitionLog(projectDir, runId);
  let text: string;
  try {
    text = await readRegularFile(path.join(projectDir, relative), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (!(await isDirectory(path.join(projectDir, runDir(runId))))) throw new UnknownRunError(runId);
      throw new RunError(
        'not_a_graph_run',
        `run ${runId} has no ${relative}: it was made by 'artifact-ingest ingest', not by a graph, and cannot be resumed; start a new run instead`,
      );
    }
    throw new RunError('state_unreadable', `cannot read ${relative}: ${describeError(error)}`, {
      cause: error,
    });
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
export async function readTransitionLog(projectDir: string, runId: RunId): Promise<string | undefined> {
  try {
    return await readRegularFile(path.join(projectDir, runTransitionsPath(runId)), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // No log (a run of an older version, an ingest's or a workflow's run), or no run folder at all.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new RunError(
      'state_unreadable',
      `cannot read ${runTransitionsPath(runId)}: ${describeError(error)}`,
      { cause: error },
    );
  }
}

async function isDirectory(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isDirectory();
  } catch {
    return false;
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
