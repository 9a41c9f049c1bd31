import type { ArtifactRecorder } from '../../artifacts/index.js';
import {
  fieldError,
  readContractBlocks,
  submitArtifact,
  validateArtifactText,
} from '../../contracts/index.js';
import type { AttemptSubmission, FieldError } from '../../contracts/index.js';
import type { EventLog } from '../../events/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';

/** One node document whose ```` ```json artifact=<type> ```` blocks go through the canonical path. */
export interface DocumentBlocksSubmission {
  readonly projectDir: string;
  readonly runId: RunId;
  readonly nodeId: NodeId;
  /** The agent's name, or `runtime`. */
  readonly agentId: string;
  readonly text: string;
  readonly root: ConfinedRoot;
  /** The run's events (bound to its run_id). */
  readonly events: EventLog;
  readonly recorder?: ArtifactRecorder;
  readonly durability?: 'fsync' | 'none';
}

/**
 * Submits every contract block of a node document through `submitArtifact`, in document order, and returns
 * each as an attempt submission; a block that is not JSON, is cut off or names no known type is a refused
 * submission with a `(root)` field error (and an `artifact.refused` event), never a throw.
 */
export async function submitDocumentBlocks(options: DocumentBlocksSubmission): Promise<AttemptSubmission[]> {
  const submissions: AttemptSubmission[] = [];
  for (const block of readContractBlocks(options.text)) {
    const refuse = (errors: readonly FieldError[], code: string, message: string): void => {
      submissions.push({ accepted: false, type: block.type, errors });
      options.events.write('WARNING', 'artifact.refused', {
        node_id: options.nodeId,
        type: block.type,
        line: block.line,
        code,
        message,
        errors: errors.slice(0, 20).map((error) => error.message),
      });
    };
    if (!block.closed) {
      const errors = [
        fieldError(
          [],
          'a closed ```json block holding one JSON object',
          'a block cut off before its closing fence',
        ),
      ];
      refuse(
        errors,
        'invalid_artifact',
        `the artifact=${block.type} block at line ${String(block.line)} is not closed`,
      );
      continue;
    }
    // Parse and type-check first: submitArtifact takes a parsed payload, and a syntax error is a (root) error.
    const checked = validateArtifactText(block.type, block.json);
    if (!checked.ok) {
      refuse(
        checked.errors,
        'invalid_artifact',
        `the artifact=${block.type} block at line ${String(block.line)} was refused`,
      );
      continue;
    }
    const outcome = await submitArtifact({
      projectDir: options.projectDir,
      runId: options.runId,
      taskId: options.nodeId,
      agentId: options.agentId,
      type: checked.type,
      payload: checked.payload,
      root: options.root,
      events: options.events,
      ...(options.recorder === undefined ? {} : { recorder: options.recorder }),
      ...(options.durability === undefined ? {} : { durability: options.durability }),
    });
    if (outcome.ok) {
      submissions.push({ accepted: true, type: outcome.type, path: outcome.path, payload: checked.payload });
    } else {
      const errors =
        outcome.errors.length > 0
          ? outcome.errors
          : [fieldError([], 'a submission the run accepts', `${outcome.code}: ${outcome.message}`)];
      refuse(errors, outcome.code, outcome.message);
    }
  }
  return submissions;
}
