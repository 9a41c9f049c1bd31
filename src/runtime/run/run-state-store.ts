import { describeError, runStatePath } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import { RunError } from './run-error.js';
import { writeRunState } from './run-state.js';
import type { NodeState, NodeStatus, RunBudgetsState, RunState, RunStatus } from './run-types.js';

/** A run's state in memory, persisted to state.json one whole snapshot at a time, in order. */
export interface RunStateStore {
  /** The state as it is now (a fresh snapshot, nodes in graph order). */
  snapshot(): RunState;
  node(nodeId: string): NodeState;
  setNode(nodeId: string, next: NodeState): void;
  setStatus(status: RunStatus): void;
  /** How many nodes are in each status. */
  counts(): Readonly<Record<NodeStatus, number>>;
  /** Writes the current snapshot atomically and returns it; writes never overtake each other. */
  commit(): Promise<RunState>;
}

/** The parts of a state that do not change while the run goes. */
export type RunStateHeader = Omit<RunState, 'status' | 'updated_at' | 'nodes' | 'budgets'>;

/** Creates the store of one run; `nodes` is in graph order; `budgets`, when given, is read at every snapshot. */
export function createRunStateStore(
  root: ConfinedRoot,
  header: RunStateHeader,
  nodes: ReadonlyMap<string, NodeState>,
  now: () => Date,
  budgets?: () => RunBudgetsState,
): RunStateStore {
  const current = new Map(nodes);
  let status: RunStatus = 'running';
  let queue: Promise<unknown> = Promise.resolve();
  let failure: RunError | undefined;

  const snapshot = (): RunState => ({
    version: header.version,
    run_id: header.run_id,
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

  return {
    snapshot,
    node(nodeId) {
      const found = current.get(nodeId);
      if (found === undefined) throw new RangeError(`node ${nodeId} is not in run ${header.run_id}`);
      return found;
    },
    setNode(nodeId, next) {
      if (!current.has(nodeId)) throw new RangeError(`node ${nodeId} is not in run ${header.run_id}`);
      current.set(nodeId, next);
    },
    setStatus(next) {
      status = next;
    },
    counts() {
      const counts = { pending: 0, running: 0, completed: 0, failed: 0, skipped: 0 };
      for (const state of current.values()) counts[state.status] += 1;
      return counts;
    },
    commit() {
      const state = snapshot();
      const written = queue.then(async () => {
        if (failure !== undefined) throw failure;
        try {
          await writeRunState(root, state);
        } catch (error) {
          failure =
            error instanceof RunError
              ? error
              : new RunError(
                  'state_write_failed',
                  `${runStatePath(header.run_id)} was not written: ${describeError(error)}`,
                  { cause: error },
                );
          throw failure;
        }
        return state;
      });
      // The next write waits for this one whether it failed or not; a failure is kept in `failure`.
      queue = written.catch(() => undefined);
      return written;
    },
  };
}
