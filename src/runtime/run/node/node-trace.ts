import type { TraceContent } from '../../../artifacts/index.js';
import { redactSecrets } from '../../../events/index.js';
import type { GraphDefinition } from '../../graph/index.js';
import type { NodeOutcome } from './run-node.js';
import type { NodeState } from '../../../runs/index.js';
import type { NodeId, RunId } from '../../../project/index.js';

/** One finished node execution, as the node loop knows it. */
export interface NodeExecution {
  readonly runId: RunId;
  readonly graph: GraphDefinition;
  readonly nodeId: NodeId;
  /** The node's state while it ran: attempt, start time, agent and prompt hash, as state.json has them. */
  readonly running: NodeState;
  readonly finishedAt: string;
  readonly durationMs: number;
  readonly outcome: NodeOutcome;
}

/** The content of a node execution's `trace` artifact: agent, graph and prompt hashes, timings, exit, ingest. */
export function nodeTraceOf(execution: NodeExecution): TraceContent {
  const { running, outcome } = execution;
  return {
    version: 1,
    runId: execution.runId,
    nodeId: execution.nodeId,
    agent: running.agent ?? 'runtime',
    graph: { name: execution.graph.name, hash: execution.graph.hash },
    promptSha256: running.prompt_sha256 ?? null,
    attempt: running.attempts,
    startedAt: running.started_at ?? execution.finishedAt,
    finishedAt: execution.finishedAt,
    durationMs: execution.durationMs,
    outcome: outcome.status,
    ...(outcome.status === 'failed'
      ? { error: { code: outcome.code, message: redactSecrets(outcome.message) } }
      : {
          document: { path: outcome.outputPath, sha256: outcome.sha256, bytes: outcome.bytes },
          ...(outcome.ingest === undefined
            ? {}
            : { ingest: { ...outcome.ingest, problems: [...outcome.ingest.problems] } }),
        }),
  };
}
