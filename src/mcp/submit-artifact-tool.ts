import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MAX_ARTIFACT_BYTES, describeFieldErrors, fieldError, submitArtifact } from '../contracts/index.js';
import type { FieldError } from '../contracts/index.js';
import { pushRunNow } from '../fleet/index.js';
import { parseNodeId, parseRunId } from '../project/index.js';
import { readRunState } from '../runtime/index.js';
import { WorkflowStateError, workflowSubmitTarget } from '../workflow/index.js';
import type { WorkflowEngineDeps, WorkflowSubmitTarget } from '../workflow/index.js';
import { toolResult } from './tool-result.js';

/** `submit_artifact`'s input as the engine takes it (spec contracts.md, "The canonical path"). */
export interface SubmitArtifactToolRequest {
  readonly type: string;
  /** The artifact; a missing one is refused by the canonical path with a `(root)` field error. */
  readonly payload?: unknown;
  readonly run_id?: string;
}

/** Why `submit_artifact` refused a call it understood: the canonical path's codes, or no node to submit for. */
export type SubmitArtifactToolCode =
  'invalid_artifact' | 'unknown_run' | 'write_refused' | 'busy' | 'record_failed' | 'node_required';

/**
 * Submits one artifact through `submitArtifact` for the current pass of a workflow run (the one running when
 * `run_id` is left out) or the single running node of a graph run: `{ run_id, type, path, content_hash, bytes,
 * task, previous? }`, or an `isError` result whose text lists every field path with its expected value,
 * followed by the same as JSON (`{ code, errors }`). Engine refusals (no run, a stopped run) are thrown.
 */
export async function callSubmitArtifact(
  projectDir: string,
  request: SubmitArtifactToolRequest,
  deps: Pick<WorkflowEngineDeps, 'durability' | 'now' | 'lockWaitMs' | 'remote'>,
): Promise<CallToolResult> {
  const target = await submitTarget(projectDir, request.run_id);
  if (!('taskId' in target)) return submitArtifactRefusal('node_required', target.message, []);
  // The canonical path checks the payload's shape; its size is checked here, before it is serialized.
  const size = request.payload === undefined ? 0 : Buffer.byteLength(JSON.stringify(request.payload), 'utf8');
  if (size > MAX_ARTIFACT_BYTES) {
    const errors = [
      fieldError([], `at most ${String(MAX_ARTIFACT_BYTES)} bytes of JSON`, `${String(size)} bytes`),
    ];
    return submitArtifactRefusal('invalid_artifact', describeFieldErrors(request.type, errors), errors);
  }
  const outcome = await submitArtifact({
    projectDir,
    runId: target.runId,
    taskId: target.taskId,
    agentId: target.agentId,
    type: request.type,
    payload: request.payload,
    ...(deps.durability === undefined ? {} : { durability: deps.durability }),
    ...(deps.now === undefined ? {} : { now: deps.now }),
    ...(deps.lockWaitMs === undefined ? {} : { lockWaitMs: deps.lockWaitMs }),
  });
  if (!outcome.ok) return submitArtifactRefusal(outcome.code, outcome.message, outcome.errors);
  // Local first: the submission is on disk; the remote gets it now, or the outbox keeps the run (fail-open).
  if (deps.remote !== undefined)
    await pushRunNow({ project: projectDir, remote: deps.remote, runId: target.runId });
  return toolResult({
    run_id: target.runId,
    type: outcome.type,
    path: outcome.path,
    content_hash: outcome.contentHash,
    bytes: outcome.bytes,
    task: outcome.taskId,
    ...(outcome.previous === undefined ? {} : { previous: outcome.previous }),
  });
}

/**
 * A refusal as an `isError` result: the message an agent acts on, then `{ code, errors }` as JSON text. Not as
 * `structuredContent`: the SDK's client validates any structured content against the tool's output schema,
 * errors included, so a refusal there would be rejected as a protocol error.
 */
export function submitArtifactRefusal(
  code: SubmitArtifactToolCode,
  message: string,
  errors: readonly FieldError[],
): CallToolResult {
  return {
    content: [
      { type: 'text', text: message },
      { type: 'text', text: JSON.stringify({ code, errors }, null, 2) },
    ],
    isError: true,
  };
}

/** The workflow pass, or the graph run's one running node, a submission belongs to; else why there is none. */
async function submitTarget(
  projectDir: string,
  runId: string | undefined,
): Promise<WorkflowSubmitTarget | { readonly message: string }> {
  try {
    return await workflowSubmitTarget(projectDir, runId);
  } catch (error) {
    if (
      runId === undefined ||
      !(error instanceof WorkflowStateError) ||
      error.code !== 'not_a_workflow_run'
    ) {
      throw error;
    }
  }
  const graphRunId = parseRunId(runId, 'run_id');
  const state = await readRunState(projectDir, graphRunId);
  const running = Object.entries(state.nodes).filter(([, node]) => node.status === 'running');
  const [only] = running;
  if (only !== undefined && running.length === 1) {
    const [nodeId, node] = only;
    return { runId: graphRunId, taskId: parseNodeId(nodeId, 'node id'), agentId: node.agent ?? 'mcp' };
  }
  // No node is working on it (the run ended, or has not started one): the submission is the caller's own,
  // as the CLI's is `cli`; it is still validated and recorded, it just completes no node.
  if (running.length === 0)
    return { runId: graphRunId, taskId: parseNodeId('mcp', 'node id'), agentId: 'mcp' };
  const which = `${String(running.length)} of its nodes are running: ${running.map(([id]) => id).join(', ')}`;
  return {
    message: `run ${graphRunId} is a graph run and ${which}; submit with the CLI, which names the node: artifact-ingest submit TYPE FILE --run-id ${graphRunId} --node-id NODE_ID`,
  };
}
