import { openArtifactRecorder } from '../../artifacts/index.js';
import type { ArtifactRecorder } from '../../artifacts/index.js';
import { openRunEventLog } from '../../events/index.js';
import type { EventLog } from '../../events/index.js';
import {
  contractArtifactPath,
  describeError,
  parseNodeId,
  parseRunId,
  RUNS_DIR,
  sha256Hex,
  submitLockPath,
} from '../../project/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { StoreError, storeLockSlot, usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { acquireShortLock } from '../../workspace/index.js';
import type { ContractType } from '../types/index.js';
import type { FieldError } from '../types/index.js';
import { describeFieldErrors, validateArtifact } from '../types/index.js';

/** What to submit, and where (spec contracts.md, "The canonical path"). */
export interface SubmitArtifactOptions {
  /** The project folder (its `.agent/` the store), or a `Project`, whose store keeps the artifact and its record. */
  readonly projectDir: ProjectRef;
  readonly runId: RunId | string;
  /** The graph node or workflow step the artifact belongs to. */
  readonly taskId: NodeId | string;
  /** Who produced it: the agent's name, `runtime` for a command node, `cli` for `artifact-ingest submit`. */
  readonly agentId: string;
  readonly type: string;
  /** The parsed JSON payload. */
  readonly payload: unknown;
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
 * through the project's store, appends an `artifact.submitted` event and an artifact record (`source: submit`,
 * linked to the previous submission of the type) and returns the path. Submissions to one run are serialized
 * across processes, so every version stays in the record chain. Refusals are results, never throws.
 */
export function submitArtifact(options: SubmitArtifactOptions): Promise<SubmitOutcome> {
  return usingProject(options.projectDir, (project) => submit(project, options));
}

async function submit(project: Project, options: SubmitArtifactOptions): Promise<SubmitOutcome> {
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
  const { store } = project;
  const unusable = await checkRunFolder(project, runId);
  if (unusable !== undefined) return refuse(type, unusable.code, unusable.message, []);

  const durability = options.durability ?? 'fsync';
  const now = options.now ?? (() => new Date());
  const artifactPath = contractArtifactPath(runId, type);
  const bytes = new TextEncoder().encode(`${JSON.stringify(validation.payload, null, 2)}\n`);
  const contentHash = `sha256:${sha256Hex(bytes)}`;

  const attempt = await acquireShortLock(storeLockSlot(store, submitLockPath(runId)), {
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
  const opened: { events?: EventLog; recorder?: ArtifactRecorder } = {};
  try {
    try {
      await store.replace(artifactPath, bytes, { durability });
    } catch (error) {
      if (!(error instanceof StoreError)) throw error;
      const reason = error.refusal === undefined ? error.code : error.refusal;
      return refuse(
        type,
        'write_refused',
        `${artifactPath} was not written: ${reason}: ${error.message}`,
        [],
      );
    }
    const submittedAt = now().toISOString();
    const events =
      options.events ?? (opened.events = await openRunEventLog(project, runId, { run_id: runId }));
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
      (opened.recorder = await openArtifactRecorder(project, {
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
  { store }: Project,
  runId: RunId,
): Promise<{ readonly code: 'unknown_run' | 'write_refused'; readonly message: string } | undefined> {
  let entry;
  try {
    entry = (await store.list(RUNS_DIR)).find((listed) => listed.name === runId);
  } catch (error) {
    // `.agent` or `.agent/runs` is a symlink or a file: the store names it.
    if (!(error instanceof StoreError)) throw error;
    return {
      code: 'write_refused',
      message: `${error.message}; a run folder must be a real directory, so nothing was written`,
    };
  }
  if (entry === undefined) {
    return {
      code: 'unknown_run',
      message: `no run "${runId}" in .agent/runs/; submit to a run that exists (list them with 'artifact-ingest runs')`,
    };
  }
  if (entry.kind === 'folder') return undefined;
  const what = entry.kind === 'other' ? 'a symlink or a special file' : 'not a directory';
  return {
    code: 'write_refused',
    message: `${RUNS_DIR}/${runId} is ${what}; a run folder must be a real directory, so nothing was written`,
  };
}
