import { describeError, runStatePath, runTransitionsPath } from '../../../project/index.js';
import { redactJson } from '../../../project/index.js';
import type { ProjectStore } from '../../../store/index.js';
import { RunError } from '../run-error.js';
import { writeRunState } from './run-state.js';
import type { RunTransition } from './run-transitions.js';
import { openTransitionLog } from './transition-log.js';
import type { TransitionLog } from './transition-log.js';
import type { NodeState, NodeStatus, RunBudgetsState, RunState, RunStatus } from '../../../runs/index.js';

/**
 * A run's state in memory, persisted as state.json (whole, at {@link RunStateStore.compact}) plus one
 * transitions.jsonl line per change (at {@link RunStateStore.commit}), in call order.
 */
export interface RunStateStore {
  /** The state as it is now (a fresh snapshot, nodes in graph order). */
  snapshot(): RunState;
  node(nodeId: string): NodeState;
  setNode(nodeId: string, next: NodeState): void;
  setStatus(status: RunStatus): void;
  /** How many nodes are in each status (kept as nodes change, not counted per call). */
  counts(): Readonly<Record<NodeStatus, number>>;
  /** Appends the nodes and status changed since the last commit to the transition log, durably. */
  commit(): Promise<void>;
  /** Writes the whole state to state.json, starts a fresh transition log over it, and returns the state. */
  compact(): Promise<RunState>;
  /**
   * Writes the whole state to state.json and removes the transition log: the run has ended, state.json alone
   * is its state (and a run folder holds only the files a bundle knows).
   */
  finish(): Promise<RunState>;
  /** Closes the transition log (after the last commit or compaction). */
  close(): Promise<void>;
}

/** The parts of a state that do not change while the run goes. */
export type RunStateHeader = Omit<RunState, 'status' | 'updated_at' | 'nodes' | 'budgets'>;

/** Where a run's state persists: the project's store (state.json and transitions.jsonl of the run). */
export interface RunStateTarget {
  readonly store: ProjectStore;
}

/** Creates the store of one run; `nodes` is in graph order; `budgets`, when given, is read at every commit. */
export function createRunStateStore(
  target: RunStateTarget,
  header: RunStateHeader,
  nodes: ReadonlyMap<string, NodeState>,
  now: () => Date,
  budgets?: () => RunBudgetsState,
): RunStateStore {
  const current = new Map(nodes);
  const counts: Record<NodeStatus, number> = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0 };
  for (const state of current.values()) counts[state.status] += 1;
  let status: RunStatus = 'running';
  let statusChanged = false;
  const changed = new Set<string>();
  let seq = 0;
  let log: TransitionLog | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  let failure: RunError | undefined;

  const snapshot = (): RunState => ({
    version: header.version,
    run_id: header.run_id,
    ...(header.host === undefined ? {} : { host: header.host }),
    status,
    graph: header.graph,
    mode: header.mode,
    inputs: header.inputs,
    ingest_enabled: header.ingest_enabled,
    created_at: header.created_at,
    updated_at: now().toISOString(),
    nodes: Object.fromEntries(current),
    ...(budgets === undefined ? {} : { budgets: budgets() }),
  });

  /** Runs `write` after every earlier one; a failure stops every later write (the run cannot go on). */
  const enqueue = <T>(file: string, write: () => Promise<T>): Promise<T> => {
    const written = queue.then(async () => {
      if (failure !== undefined) throw failure;
      try {
        return await write();
      } catch (error) {
        failure =
          error instanceof RunError
            ? error
            : new RunError('state_write_failed', `${file} was not written: ${describeIoError(error)}`, {
                cause: error,
              });
        throw failure;
      }
    });
    queue = written.catch(() => undefined);
    return written;
  };

  const compactTo = (next: 'log' | 'none'): Promise<RunState> => {
    const state = snapshot();
    changed.clear();
    statusChanged = false;
    // Lines committed from now on go to the log this compaction starts, numbered from 1.
    seq = 0;
    return enqueue(runStatePath(header.run_id), async () => {
      const base = await writeRunState(target.store, state);
      // A crash from here on leaves the previous log, whose header names other bytes: readers ignore it.
      await log?.close();
      log = undefined;
      const relative = runTransitionsPath(header.run_id);
      if (next === 'log') log = await openTransitionLog(target.store, header.run_id, base);
      else await target.store.remove(relative);
      return state;
    });
  };

  return {
    snapshot,
    node(nodeId) {
      const found = current.get(nodeId);
      if (found === undefined) throw new RangeError(`node ${nodeId} is not in run ${header.run_id}`);
      return found;
    },
    setNode(nodeId, next) {
      const previous = current.get(nodeId);
      if (previous === undefined) throw new RangeError(`node ${nodeId} is not in run ${header.run_id}`);
      current.set(nodeId, next);
      counts[previous.status] -= 1;
      counts[next.status] += 1;
      changed.add(nodeId);
    },
    setStatus(next) {
      status = next;
      statusChanged = true;
    },
    counts: () => ({ ...counts }),
    commit() {
      // The lines are made now, so they hold the state as of this call, whatever changes before they are written.
      const at = now().toISOString();
      const lines: RunTransition[] = [...changed].map((nodeId) => ({
        seq: 0,
        at,
        node: nodeId,
        state: current.get(nodeId) as NodeState,
      }));
      changed.clear();
      if (statusChanged || lines.length === 0) lines.push({ seq: 0, at, status });
      statusChanged = false;
      const last = lines.length - 1;
      const text = lines
        .map((line, index) => {
          seq += 1;
          const numbered = {
            ...line,
            seq,
            ...(index === last && budgets !== undefined ? { budgets: budgets() } : {}),
          };
          // Errors and ingest problems are redacted as state.json's are (docs/security.md, "Secrets").
          return `${JSON.stringify(redactJson(numbered))}\n`;
        })
        .join('');
      return enqueue(runTransitionsPath(header.run_id), async () => {
        if (log === undefined) throw new RangeError('commit() before the first compact()');
        await log.append(text);
      });
    },
    compact() {
      return compactTo('log');
    },
    finish() {
      return compactTo('none');
    },
    async close() {
      await queue;
      try {
        await log?.close();
      } catch {
        // Every line was fsynced when its commit resolved: a failing close loses nothing.
      }
      log = undefined;
    },
  };
}

/** An I/O error as the confined writer words its own: `no space left on device (ENOSPC)`. */
function describeIoError(error: unknown): string {
  const { code, syscall } = error as NodeJS.ErrnoException;
  const message = describeError(error);
  if (typeof code !== 'string') return message;
  const reason = message.startsWith(`${code}: `) ? message.slice(code.length + 2) : message;
  const bare =
    syscall !== undefined && reason.endsWith(`, ${syscall}`) ? reason.slice(0, -syscall.length - 2) : reason;
  return `${bare} (${code})`;
}
