import path from 'node:path';
import { openArtifactRecorder } from '../../artifacts/index.js';
import type { ArtifactRecorder } from '../../artifacts/index.js';
import { openRunEventLog } from '../../events/index.js';
import type { EventLog } from '../../events/index.js';
import {
  contractArtifactPath,
  describeError,
  parseNodeId,
  parseRunId,
  runDir,
  sha256Hex,
  submitLockPath,
} from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { acquireShortLock, inspectDirectoryChain, openConfinedRoot } from '../../workspace/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import type { ContractType } from '../types/index.js';
import type { FieldError } from '../types/index.js';
import { describeFieldErrors, validateArtifact } from '../types/index.js';

/** What to submit, and where (spec contracts.md, "The canonical path"). */
export interface SubmitArtifactOptions {
  readonly projectDir: string;
  readonly runId: RunId | string;
  /** The graph node or workflow step the artifact belongs to. */
  readonly taskId: NodeId | string;
  /** Who produced it: the agent's name, `runtime` for a command node, `cli` for `artifact-ingest submit`. */
  readonly agentId: string;
  readonly type: string;
  /** The parsed JSON payload. */
  readonly payload: unknown;
  /** The run's confined project root, when the caller holds one; otherwise one is opened and closed. */
  readonly root?: ConfinedRoot;
  /** The run's event log (bound to its run_id); otherwise the run's events.jsonl is opened and closed. */
  readonly events?: EventLog;
  /** The run's artifact recorder; otherwise one is opened and closed. */
  readonly recorder?: ArtifactRecorder;
  readonly durability?: 'fsync' | 'none';
  /** How long to wait for another submission to the same run (default 5 s). */
  readonly lockWaitMs?: number;
  /** Clock, for tests. */
  readonly now?: () => Date;
}

/** Why a submission was refused: a stable code, a message that says what to do, and field errors if any. */
export type SubmitRefusalCode =
  'invalid_artifact' | 'unknown_run' | 'write_refused' | 'busy' | 'record_failed';

/** The outcome of {@link submitArtifact}. */
export type SubmitOutcome =
  | {
      readonly ok: true;
      readonly type: ContractType;
      /** `.agent/artifacts/<run_id>/<type>.json`, project-relative. */
      readonly path: string;
      /** `sha256:<hex>` of the file's bytes. */
      readonly contentHash: string;
      readonly bytes: number;
      readonly taskId: NodeId;
      /** The record this submission added; absent when the same bytes were already the latest version. */
      readonly artifactId?: string;
      /** The previous submission of this type in the run, if any. */
      readonly previous?: string;
      readonly submittedAt: string;
    }
  | {
      readonly ok: false;
      readonly code: SubmitRefusalCode;
      readonly type: string;
      readonly message: string;
      /** Every field error, for `invalid_artifact`. */
      readonly errors: readonly FieldError[];
    };

const DEFAULT_LOCK_WAIT_MS = 5_000;

/**
 * The only writer of `.agent/artifacts/<run_id>/<type>.json`: validates the payload, writes it atomically
 * through the confined writer, appends an `artifact.submitted` event and an artifact record (`source: submit`,
 * linked to the previous submission of the type) and returns the path. Submissions to one run are serialized
 * across processes, so every version stays in the record chain. Refusals are results, never throws.
 */
export async function submitArtifact(options: SubmitArtifactOptions): Promise<SubmitOutcome> {
  const validation = validateArtifact(options.type, options.payload);
  if (!validation.ok) {
    return refuse(
      options.type,
      'invalid_artifact',
      describeFieldErrors(options.type, validation.errors),
      validation.errors,
    );
  }
  const type = validation.type;
  const runId = parseRunId(String(options.runId), 'run id');
  const taskId = parseNodeId(String(options.taskId), 'node id');
  const projectDir = path.resolve(options.projectDir);
  const unusable = await checkRunFolder(projectDir, runId);
  if (unusable !== undefined) return refuse(type, unusable.code, unusable.message, []);

  const durability = options.durability ?? 'fsync';
  const now = options.now ?? (() => new Date());
  const artifactPath = contractArtifactPath(runId, type);
  const bytes = new TextEncoder().encode(`${JSON.stringify(validation.payload, null, 2)}\n`);
  const contentHash = `sha256:${sha256Hex(bytes)}`;

  const attempt = await acquireShortLock(path.join(projectDir, submitLockPath(runId)), {
    waitMs: options.lockWaitMs ?? DEFAULT_LOCK_WAIT_MS,
  });
  if (!attempt.acquired) {
    return refuse(
      type,
      'busy',
      `another submission to run ${runId} holds ${submitLockPath(runId)} (${attempt.holder}); submit again`,
      [],
    );
  }
  const opened: { root?: ConfinedRoot; events?: EventLog; recorder?: ArtifactRecorder } = {};
  try {
    const root = options.root ?? (opened.root = await openConfinedRoot(projectDir));
    const written = await root.write(artifactPath, bytes, { durability });
    if (written.status === 'refused') {
      return refuse(
        type,
        'write_refused',
        `${artifactPath} was not written: ${written.code}: ${written.message}`,
        [],
      );
    }
    const submittedAt = now().toISOString();
    const events =
      options.events ?? (opened.events = await openRunEventLog(projectDir, runId, { run_id: runId }));
    events.write('INFO', 'artifact.submitted', {
      type,
      path: artifactPath,
      hash: contentHash,
      task: taskId,
      agent: options.agentId,
      size: bytes.byteLength,
    });
    const recorder =
      options.recorder ??
      (opened.recorder = await openArtifactRecorder(projectDir, {
        durability,
        ...(options.now === undefined ? {} : { now: options.now }),
      }));
    let records;
    try {
      records = await recorder.recordVersions([
        {
          runId,
          taskId,
          agentId: options.agentId,
          kind: 'file',
          path: artifactPath,
          bytes,
          language: 'json',
          source: 'submit',
          contract: type,
        },
      ]);
    } catch (error) {
      return refuse(
        type,
        'record_failed',
        `${artifactPath} was written but its record was not (${describeError(error)}); submit it again so audit finds it canonical`,
        [],
      );
    }
    const record = records[0];
    return {
      ok: true,
      type,
      path: artifactPath,
      contentHash,
      bytes: bytes.byteLength,
      taskId,
      ...(record === undefined ? {} : { artifactId: record.artifactId }),
      ...(record?.metadata.previous === undefined ? {} : { previous: record.metadata.previous }),
      submittedAt,
    };
  } finally {
    await attempt.lock.release();
    await opened.recorder?.close();
    await opened.events?.close().catch(() => undefined);
    await opened.root?.close();
  }
}

function refuse(
  type: string,
  code: SubmitRefusalCode,
  message: string,
  errors: readonly FieldError[],
): SubmitOutcome {
  return { ok: false, code, type, message, errors };
}

/**
 * A submission needs its run's folder (its events, records and lock live there): missing is `unknown_run`; a
 * symlink or a non-directory on the way is refused before anything is written through it.
 */
async function checkRunFolder(
  projectDir: string,
  runId: RunId,
): Promise<{ readonly code: 'unknown_run' | 'write_refused'; readonly message: string } | undefined> {
  const problem = await inspectDirectoryChain(projectDir, runDir(runId));
  if (problem === undefined) return undefined;
  if (problem.kind === 'missing') {
    return {
      code: 'unknown_run',
      message: `no run "${runId}" in .agent/runs/; submit to a run that exists (list them with 'artifact-ingest runs')`,
    };
  }
  const what = problem.kind === 'symlink' ? 'a symlink' : 'not a directory';
  return {
    code: 'write_refused',
    message: `${problem.at} is ${what}; a run folder must be a real directory, so nothing was written`,
  };
}
