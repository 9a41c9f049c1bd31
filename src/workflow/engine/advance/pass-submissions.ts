import { defaultMaxParseMs } from '../../../config/index.js';
import type { FenceParser } from '../../../project/index.js';
import {
  fieldError,
  omittedBlocksError,
  readContractBlocks,
  readSubmissions,
  submitArtifact,
  validateArtifactText,
} from '../../../contracts/index.js';
import type { ArtifactPayload, AttemptSubmission, ContractType } from '../../../contracts/index.js';
import type { EventLog } from '../../../events/index.js';
import { contractArtifactPath } from '../../../project/index.js';
import type { NodeId, RunId } from '../../../project/index.js';
import { usingProject } from '../../../store/index.js';
import type { ProjectRef } from '../../../store/index.js';
import type { WorkflowState } from '../../state/index.js';
import { WorkflowError } from '../workflow-error.js';

/** The ```` ```json artifact=<type> ```` blocks of a pass's output: each judged, the valid ones to submit. */
export interface OutputSubmissions {
  /** Every block as completion detection sees it, in document order. */
  readonly attempt: readonly AttemptSubmission[];
  /** The valid blocks, submitted through `submitArtifact` once the advance holds the state lock. */
  readonly accepted: readonly { readonly type: ContractType; readonly payload: ArtifactPayload }[];
}

/**
 * Judges the contract blocks of `output` without writing anything (an advance that is refused must leave no
 * artifact): a valid block is an accepted submission at its `.agent/artifacts/` path, any other one is refused
 * with its field errors (a cut-off block, JSON that does not parse, an unknown type, a schema error).
 */
export async function readOutputSubmissions(
  runId: RunId,
  output: string | undefined,
  parse: { readonly timeLimitMs?: number; readonly parser?: FenceParser; readonly maxBlocks?: number } = {},
): Promise<OutputSubmissions> {
  const timeLimitMs = parse.timeLimitMs ?? defaultMaxParseMs(parse.parser);
  if (output === undefined) return { attempt: [], accepted: [] };
  const attempt: AttemptSubmission[] = [];
  const accepted: { type: ContractType; payload: ArtifactPayload }[] = [];
  const scan = await readContractBlocks(output, {
    timeLimitMs,
    parser: parse.parser,
    maxBlocks: parse.maxBlocks,
  });
  if (scan.timedOut === true) {
    // Nothing of the output was read: one refused submission says why, so the fix request can name it.
    const message = `an output that took over max_parse_ms (${String(timeLimitMs)} ms) to parse`;
    attempt.push({
      accepted: false,
      type: '',
      errors: [fieldError([], 'an output whose artifact= blocks parse within max_parse_ms', message)],
    });
    return { attempt, accepted };
  }
  for (const block of scan.blocks) {
    if (!block.closed) {
      attempt.push({
        accepted: false,
        type: block.type,
        errors: [
          fieldError(
            [],
            `a closed block: the answer ended before the closing fence of line ${String(block.line)}`,
            undefined,
          ),
        ],
      });
      continue;
    }
    const validation = validateArtifactText(block.type, block.json);
    if (!validation.ok) {
      attempt.push({ accepted: false, type: validation.type, errors: validation.errors });
      continue;
    }
    attempt.push({
      accepted: true,
      type: validation.type,
      path: contractArtifactPath(runId, validation.type),
      payload: validation.payload,
    });
    accepted.push({ type: validation.type, payload: validation.payload });
  }
  // Counted, never listed (issue 23): one refused attempt for every block past max_blocks.
  if (scan.omitted !== undefined) {
    attempt.push({ accepted: false, type: '', errors: [omittedBlocksError(scan.omitted, parse.maxBlocks)] });
  }
  return { attempt, accepted };
}

/**
 * The canonical submissions made for this pass before the advance (the `submit_artifact` tool, the CLI's
 * `submit`): the run's `source: submit` records of the pass's node id since the pass started, with their
 * payloads read back from the object store (not from `.agent/artifacts/`, which anyone could edit).
 */
export async function readPassSubmissions(
  projectDir: ProjectRef,
  state: WorkflowState,
  nodeId: NodeId,
): Promise<AttemptSubmission[]> {
  const since = Date.parse(state.step_started_at);
  const recorded = (await readSubmissions(projectDir, state.run_id)).filter(
    ({ record }) => record.taskId === nodeId && Date.parse(record.createdAt) >= since,
  );
  if (recorded.length === 0) return [];
  return usingProject(projectDir, async (project) => {
    const store = await project.store.openObjects({ readOnly: true });
    try {
      const submissions: AttemptSubmission[] = [];
      for (const { type, record } of recorded) {
        let payload: unknown;
        try {
          payload = JSON.parse(new TextDecoder().decode(await store.get(record.contentHash))) as unknown;
        } catch {
          // A version whose bytes are gone cannot satisfy a contract; `audit` reports the damage.
          continue;
        }
        submissions.push({ accepted: true, type, path: record.path, payload: payload as ArtifactPayload });
      }
      return submissions;
    } finally {
      await store.close();
    }
  });
}

/**
 * Submits the output's valid blocks through the canonical path (taskId the pass's node id, agentId the step's
 * agent or `workflow`); a refusal here (I/O, a busy lock) refuses the advance, since its verdict counted them.
 */
export async function submitOutputBlocks(
  projectDir: ProjectRef,
  context: {
    readonly runId: RunId;
    readonly nodeId: NodeId;
    readonly agentId: string;
    readonly events: EventLog;
    readonly durability: 'fsync' | 'none';
    readonly now?: () => Date;
  },
  accepted: OutputSubmissions['accepted'],
): Promise<void> {
  for (const { type, payload } of accepted) {
    const outcome = await submitArtifact({
      projectDir,
      runId: context.runId,
      taskId: context.nodeId,
      agentId: context.agentId,
      type,
      payload,
      events: context.events,
      durability: context.durability,
      ...(context.now === undefined ? {} : { now: context.now }),
    });
    if (!outcome.ok) {
      throw new WorkflowError(
        'output_not_written',
        `the ${type} artifact of the output was not submitted: ${outcome.message}; the workflow did not move: call workflow_advance again`,
      );
    }
  }
}
