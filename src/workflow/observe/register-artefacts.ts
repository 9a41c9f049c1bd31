import { projectDirOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import path from 'node:path';
import { openArtifactRecorder } from '../../artifacts/index.js';
import type { ArtifactRecord, ArtifactVersionInput } from '../../artifacts/index.js';
import { describeValue } from '../../config/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import { openConfinedRoot } from '../../workspace/index.js';
import type { WriteStep } from '../../workspace/index.js';
import { judgeArtefactPath } from './judge-artefact-path.js';
import type { RegistrationProblemCode } from './judge-artefact-path.js';
import { ObserveError } from './observe-error.js';

/** One call of register_artefacts: who registers, the raw `paths` argument, and the run's registered list. */
export interface RegisterArtefactsRequest {
  readonly runId: RunId;
  /** The current step's id: the records' `taskId`. */
  readonly taskId: NodeId;
  /** The agent named in the records (the step's `agent`, or the engine's default). */
  readonly agentId: string;
  /** The tool's `paths` argument as received; anything but an array of strings is an {@link ObserveError}. */
  readonly paths: unknown;
  /** The run's registered paths so far (state.json `artefacts`), project-relative. */
  readonly already: readonly string[];
}

/** Options of {@link registerArtefacts}. */
export interface RegisterArtefactsOptions {
  /** Clock for the records' `createdAt`, for tests. */
  readonly now?: () => Date;
  /** Object and record durability: `fsync` (default) or `none`. */
  readonly durability?: 'fsync' | 'none';
  /** Called after each folder the walk to a registered file opens (tests plant races here). */
  readonly onStep?: (step: WriteStep) => void | Promise<void>;
}

/** A path register_artefacts refused: the path as given, a reason code and a message that says what to do. */
export interface InvalidArtefact {
  readonly path: string;
  readonly code: RegistrationProblemCode;
  readonly message: string;
}

/** What register_artefacts did (the engine adds `run_id`); paths are project-relative POSIX paths. */
export interface RegisterArtefactsResult {
  /** Newly registered, in the order given: append them to the run's `artefacts`. */
  readonly registered: readonly string[];
  /** Already in the run's list, or given twice in this call. */
  readonly duplicates: readonly string[];
  readonly invalid: readonly InvalidArtefact[];
  /** The artifact records written (source `register`), for the engine's events. */
  readonly records: readonly ArtifactRecord[];
}

/**
 * Registers files an agent says it wrote: judges each path (ingest's path rules, the project, symlinks, `.git`,
 * `.agent`, an existing regular file), reads each accepted file once and records it as an artifact version
 * (`source: "register"`). A duplicate of an earlier registration is recorded only when its bytes changed since
 * the path's last recorded version; nothing is recorded for an invalid path.
 */
export async function registerArtefacts(
  projectDir: ProjectRef,
  request: RegisterArtefactsRequest,
  options: RegisterArtefactsOptions = {},
): Promise<RegisterArtefactsResult> {
  const paths = checkPathsArgument(request.paths);
  const given = path.resolve(projectDirOf(projectDir));
  const files = await openConfinedRoot(given);
  const registered: string[] = [];
  const duplicates: string[] = [];
  const invalid: InvalidArtefact[] = [];
  const versions: ArtifactVersionInput[] = [];
  try {
    const root = { given, real: files.realPath, files };
    const already = new Set(request.already);
    const seen = new Set<string>();
    const readOptions = options.onStep === undefined ? {} : { onStep: options.onStep };
    for (const raw of paths) {
      const verdict = await judgeArtefactPath(root, raw, readOptions);
      if (!verdict.ok) {
        invalid.push({ path: raw, code: verdict.code, message: verdict.message });
        continue;
      }
      const firstInCall = !seen.has(verdict.path);
      seen.add(verdict.path);
      try {
        if (!firstInCall) {
          duplicates.push(verdict.path);
          continue;
        }
        // The bytes of the descriptor the walk opened: never a path resolved again after the check.
        const bytes = new Uint8Array(await verdict.handle.readFile());
        const earlier = already.has(verdict.path);
        (earlier ? duplicates : registered).push(verdict.path);
        versions.push({
          runId: request.runId,
          taskId: request.taskId,
          agentId: request.agentId,
          kind: 'file',
          path: verdict.path,
          bytes,
          source: 'register',
          // A re-registration is a new version only when the bytes differ from the last recorded ones.
          ...(earlier ? { changed: false } : {}),
        });
      } finally {
        await verdict.handle.close();
      }
    }
  } finally {
    await files.close();
  }
  const records = versions.length === 0 ? [] : await recordRegistered(projectDir, versions, options);
  return { registered, duplicates, invalid, records };
}

async function recordRegistered(
  projectDir: ProjectRef,
  versions: readonly ArtifactVersionInput[],
  options: RegisterArtefactsOptions,
): Promise<ArtifactRecord[]> {
  const recorder = await openArtifactRecorder(projectDir, {
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.durability === undefined ? {} : { durability: options.durability }),
  });
  try {
    return await recorder.recordVersions(versions);
  } finally {
    await recorder.close();
  }
}

/** The spec's wording (workflow-mcp.md, "MCP server"): "paths must be an array of strings". */
function checkPathsArgument(paths: unknown): readonly string[] {
  if (!Array.isArray(paths)) {
    throw new ObserveError('invalid_paths', `paths must be an array of strings, got ${describeValue(paths)}`);
  }
  const entries: readonly unknown[] = paths;
  const index = entries.findIndex((entry) => typeof entry !== 'string');
  if (index !== -1) {
    throw new ObserveError(
      'invalid_paths',
      `paths must be an array of strings: paths[${String(index)}] is ${describeValue(entries[index])}`,
    );
  }
  return entries as readonly string[];
}
