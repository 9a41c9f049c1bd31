import type { ArtifactRecord, ArtifactType } from '../artifact-record.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { openVersionDiffer, unknownPreviousMessage } from './diff-versions.js';
import type { ReplayDiff } from './diff-versions.js';
import { LineageError } from './lineage-error.js';
import { readLinkedVersions } from '../store/index.js';
import { readRunTimeline } from './read-run-timeline.js';
import { resolveRecordPath } from './resolve-record-path.js';
import type { RunTimeline, TimelineProblem, TimelineStep } from './read-run-timeline.js';
import type { TraceContent } from '../trace-content.js';

/** Options of {@link replayRun}. */
export interface ReplayOptions {
  /** From the final state back, with each version's diff from its previous version. */
  readonly backward?: boolean;
  /** Only this path: project-relative (`workspace/src/a.ts`, `docs/plan.md`) or workspace-relative (`src/a.ts`). */
  readonly path?: string;
}

/** One version record as a replay shows it. */
export interface ReplayArtifact {
  readonly path: string;
  readonly type: ArtifactType;
  readonly artifactId: string;
  readonly taskId: string;
  readonly contentHash: string;
  /** The artifact id of the path's previous version (in any run), or null for a first version. */
  readonly previous: string | null;
  readonly change: 'created' | 'changed';
  readonly linesAdded: number;
  readonly linesRemoved: number;
  readonly bytes: number;
  /** Backward only: the unified diff from the previous version (or from empty for a first version). */
  readonly diff?: ReplayDiff;
}

/**
 * One node execution as a replay shows it: node, agent, prompt hash, timings, outcome, ingest summary, artifacts;
 * or one ingest of a run made by `artifact-ingest ingest --run-id` (no trace: attempt 1, no prompt).
 */
export interface ReplayStep {
  readonly kind: 'node' | 'ingest';
  /** 1-based among completed executions; null for a failed one. */
  readonly step: number | null;
  readonly taskId: string;
  readonly agentId: string;
  readonly outcome: TraceContent['outcome'];
  readonly attempt: number;
  /** sha256 hex of the rendered prompt, or null for a node without one (`write_file`). */
  readonly promptSha256: string | null;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly durationMs: number;
  /** The artifact id of the execution's trace record; null for an ingest. */
  readonly traceId: string | null;
  readonly error?: NonNullable<TraceContent['error']>;
  readonly document?: NonNullable<TraceContent['document']>;
  readonly ingest?: NonNullable<TraceContent['ingest']>;
  readonly artifacts: readonly ReplayArtifact[];
}

/** The version a path had before the run: the previous version of the run's first version of it. */
export interface PriorVersion {
  readonly path: string;
  readonly artifactId: string;
  readonly runId: string;
  readonly taskId: string;
  readonly contentHash: string;
  readonly createdAt: string;
  readonly bytes: number;
}

/** A previous version named by a record that no run's records hold. */
export interface UnknownPrevious {
  readonly code: 'unknown_previous';
  readonly path: string;
  readonly artifactId: string;
  readonly message: string;
}

/** Something a replay could not read. */
export type ReplayProblem = TimelineProblem | UnknownPrevious;

/** A read-only account of a run, forward (time order) or backward (final state first, with diffs). */
export interface RunReplay {
  readonly runId: string;
  /** `graph` for a run of the runtime or a workflow, `ingest` for one made by `artifact-ingest ingest --run-id`. */
  readonly kind: RunTimeline['kind'];
  readonly direction: 'forward' | 'backward';
  /** The project-relative path the replay is filtered to, or null. */
  readonly path: string | null;
  readonly graph: RunTimeline['graph'];
  readonly startedAt: string | null;
  /** Forward: in the order the executions finished; backward: reversed, each step's artifacts newest first. */
  readonly steps: readonly ReplayStep[];
  /** Versions of interrupted executions (no trace followed them); backward lists them newest first. */
  readonly unfinished: readonly ReplayArtifact[];
  /** Backward only: the versions the run's touched paths had before the run (empty for a project's first run). */
  readonly before?: readonly PriorVersion[];
  readonly problems: readonly ReplayProblem[];
}

/**
 * Replays a run from its records without executing or writing anything: forward, each node execution with
 * its artifacts and line counts; backward, from the final state back with each version's unified diff.
 */
export function replayRun(
  project: ProjectRef,
  runId: string,
  options: ReplayOptions = {},
): Promise<RunReplay> {
  return usingProject(project, (opened) => replay(opened, runId, options));
}

async function replay(project: Project, runId: string, options: ReplayOptions): Promise<RunReplay> {
  const timeline = await readRunTimeline(project, runId);
  const path = options.path === undefined ? null : resolveReplayPath(project.dir, timeline, options.path);
  const matches = (record: ArtifactRecord): boolean => path === null || record.path === path;
  const steps = timeline.steps
    .filter((step) => path === null || step.artifacts.some(matches))
    .map((step) => replayStep(step, step.artifacts.filter(matches).map(replayArtifact)));
  const unfinished = timeline.unfinished.filter(matches).map(replayArtifact);
  const common = {
    runId: timeline.runId,
    kind: timeline.kind,
    path,
    graph: timeline.graph,
    startedAt: timeline.startedAt,
  };
  if (options.backward !== true) {
    return { ...common, direction: 'forward', steps, unfinished, problems: timeline.problems };
  }

  const runVersions = timeline.steps
    .flatMap((step) => step.artifacts)
    .concat(timeline.unfinished)
    .filter(matches);
  // Only the previous versions of what the run made are needed: found through the path index, not all runs.
  const versions = await readLinkedVersions(project, runVersions);
  const problems: ReplayProblem[] = [...timeline.problems];
  const before = priorVersions(runVersions, versions, problems);
  const differ = openVersionDiffer(project, versions);
  try {
    const withDiffs = async (artifacts: readonly ReplayArtifact[]): Promise<ReplayArtifact[]> => {
      const diffed: ReplayArtifact[] = [];
      for (const artifact of [...artifacts].reverse())
        diffed.push({ ...artifact, diff: await differ.diffOf(artifact) });
      return diffed;
    };
    const backwardSteps: ReplayStep[] = [];
    for (const step of [...steps].reverse())
      backwardSteps.push({ ...step, artifacts: await withDiffs(step.artifacts) });
    return {
      ...common,
      direction: 'backward',
      steps: backwardSteps,
      unfinished: await withDiffs(unfinished),
      before,
      problems,
    };
  } finally {
    await differ.close();
  }
}

/**
 * Resolves `--path` as `log` does (resolveRecordPath), then against the run's version paths; `docs/x.md` also
 * finds a workspace file `workspace/docs/x.md` when the run has no node document of that name.
 */
function resolveReplayPath(dir: string, timeline: RunTimeline, requested: string): string {
  const paths = new Set(
    timeline.steps
      .flatMap((step) => step.artifacts)
      .concat(timeline.unfinished)
      .map((record) => record.path),
  );
  const path = resolveRecordPath(dir, requested);
  if (paths.has(path)) return path;
  if (!path.startsWith('workspace/') && paths.has(`workspace/${path}`)) return `workspace/${path}`;
  throw new LineageError({
    code: 'unknown_path',
    message: `run ${timeline.runId} recorded no version of ${JSON.stringify(requested)}; see its paths with 'artifact-ingest replay ${timeline.runId}'`,
  });
}

function replayStep(step: TimelineStep, artifacts: readonly ReplayArtifact[]): ReplayStep {
  const { content } = step;
  if (content === null || step.trace === null) return ingestStep(step, artifacts);
  return {
    kind: 'node',
    step: step.step,
    taskId: step.taskId,
    agentId: step.agentId,
    outcome: step.outcome,
    attempt: content.attempt,
    promptSha256: content.promptSha256,
    startedAt: content.startedAt,
    finishedAt: content.finishedAt,
    durationMs: content.durationMs,
    traceId: step.trace.artifactId,
    ...(content.error === undefined ? {} : { error: content.error }),
    ...(content.document === undefined ? {} : { document: content.document }),
    ...(content.ingest === undefined ? {} : { ingest: content.ingest }),
    artifacts,
  };
}

/** An ingest of a run made by `ingest --run-id`: its times are its manifest's and its records'. */
function ingestStep(step: TimelineStep, artifacts: readonly ReplayArtifact[]): ReplayStep {
  const times = step.artifacts.map((record) => record.createdAt);
  const startedAt = step.manifest?.ts ?? times[0] ?? '';
  const finishedAt = times.at(-1) ?? startedAt;
  const manifest = step.manifest;
  return {
    kind: 'ingest',
    step: step.step,
    taskId: step.taskId,
    agentId: step.agentId,
    outcome: step.outcome,
    attempt: 1,
    promptSha256: null,
    startedAt,
    finishedAt,
    durationMs: Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt)) || 0,
    traceId: null,
    ...(manifest === undefined
      ? {}
      : { ingest: { ...manifest.summary, manifest_path: manifest.path, problems: [] } }),
    artifacts,
  };
}

function replayArtifact(record: ArtifactRecord): ReplayArtifact {
  const previous = record.metadata.previous ?? null;
  return {
    path: record.path,
    type: record.type,
    artifactId: record.artifactId,
    taskId: record.taskId,
    contentHash: record.contentHash,
    previous,
    change: previous === null ? 'created' : 'changed',
    linesAdded: record.metadata.linesAdded,
    linesRemoved: record.metadata.linesRemoved,
    bytes: record.metadata.bytes,
  };
}

/** For each path the run touched, the version its first version in the run replaced; paths it created have none. */
function priorVersions(
  runVersions: readonly ArtifactRecord[],
  versions: ReadonlyMap<string, ArtifactRecord>,
  problems: ReplayProblem[],
): PriorVersion[] {
  const firstByPath = new Map<string, ArtifactRecord>();
  for (const record of runVersions) if (!firstByPath.has(record.path)) firstByPath.set(record.path, record);
  const before: PriorVersion[] = [];
  for (const [path, first] of firstByPath) {
    const previousId = first.metadata.previous;
    if (previousId === undefined) continue;
    const previous = versions.get(previousId);
    if (previous === undefined) {
      problems.push(unknownPrevious(path, previousId));
      continue;
    }
    before.push({
      path,
      artifactId: previous.artifactId,
      runId: previous.runId,
      taskId: previous.taskId,
      contentHash: previous.contentHash,
      createdAt: previous.createdAt,
      bytes: previous.metadata.bytes,
    });
  }
  return before.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function unknownPrevious(path: string, artifactId: string): UnknownPrevious {
  return {
    code: 'unknown_previous',
    path,
    artifactId,
    message: unknownPreviousMessage(path, artifactId),
  };
}
