import type { ProjectRef } from '../../../store/index.js';
import type { ArtifactRecorder } from '../../../artifacts/index.js';
import { defaultMaxParseMs } from '../../../config/index.js';
import type { FenceParser } from '../../../project/index.js';
import {
  fieldError,
  omittedBlocksError,
  readContractBlocks,
  submitArtifact,
  validateArtifactText,
} from '../../../contracts/index.js';
import type { AttemptSubmission, FieldError } from '../../../contracts/index.js';
import type { EventLog } from '../../../events/index.js';
import type { NodeId, RunId } from '../../../project/index.js';

/** One node document whose ```` ```json artifact=<type> ```` blocks go through the canonical path. */
export interface DocumentBlocksSubmission {
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly projectDir: ProjectRef;
  readonly runId: RunId;
  readonly nodeId: NodeId;
  /** The agent's name, or `runtime`. */
  readonly agentId: string;
  readonly text: string;
  /** The run's events (bound to its run_id). */
  readonly events: EventLog;
  readonly recorder?: ArtifactRecorder;
  readonly durability?: 'fsync' | 'none';
  /** The parse's deadline (`ingest.limits.max_parse_ms`); a document that overruns it has its blocks refused. */
  readonly timeLimitMs?: number;
  /** The block parser (`ingest.parser`); by default the scanner. */
  readonly parser?: FenceParser;
  /** Candidates read (`ingest.limits.max_blocks`); the artifact= blocks after them are refused together. */
  readonly maxBlocks?: number;
}

/**
 * Submits every contract block of a node document through `submitArtifact`, in document order, and returns
 * each as an attempt submission; a block that is not JSON, is cut off or names no known type is a refused
 * submission with a `(root)` field error (and an `artifact.refused` event), never a throw.
 */
export async function submitDocumentBlocks(options: DocumentBlocksSubmission): Promise<AttemptSubmission[]> {
  const submissions: AttemptSubmission[] = [];
  const limit = options.timeLimitMs ?? defaultMaxParseMs(options.parser);
  const scan = await readContractBlocks(options.text, {
    timeLimitMs: limit,
    parser: options.parser,
    maxBlocks: options.maxBlocks,
  });
  if (scan.timedOut === true) {
    // Nothing of the document was read: one refused submission and one event say why, never a silent miss.
    const error = fieldError(
      [],
      'a document whose artifact= blocks parse within max_parse_ms',
      `a document that took over max_parse_ms (${String(limit)} ms) to parse`,
    );
    submissions.push({ accepted: false, type: '', errors: [error] });
    options.events.write('WARNING', 'artifact.refused', {
      node_id: options.nodeId,
      type: '',
      line: 0,
      code: 'too_complex',
      message: `the document took over max_parse_ms (${String(limit)} ms) to parse; none of its artifact= blocks was read`,
      errors: [error.message],
    });
    return submissions;
  }
  for (const block of scan.blocks) {
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
  if (scan.omitted !== undefined) {
    // Counted, never listed (issue 23): one refused submission and one event for all of them.
    const error = omittedBlocksError(scan.omitted, options.maxBlocks);
    submissions.push({ accepted: false, type: '', errors: [error] });
    options.events.write('WARNING', 'artifact.refused', {
      node_id: options.nodeId,
      type: '',
      line: 0,
      code: 'too_many_blocks',
      message: `${error.got ?? ''}; split the document or raise ingest.limits.max_blocks`,
      omitted: scan.omitted,
      errors: [error.message],
    });
  }
  return submissions;
}
