import type { ArtifactRecord, RunTimeline, TimelineStep } from '../../artifacts/index.js';
import { isNodeId, manifestPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { DocumentRef } from './read-step-document.js';
import type { RunSource } from './read-run-source.js';
import type { ReportStep, ReportStepContract, ReportStepStatus } from './run-report.js';

/** A step before its document, blocks and diffs are read: where to find them, and everything else. */
export interface StepDraft extends Omit<
  ReportStep,
  'key' | 'lane' | 'document' | 'blocks' | 'files' | 'contract'
> {
  readonly document: DocumentRef | null;
  /** Project-relative manifest whose blocks are this step's, or null. */
  readonly manifestPath: string | null;
  readonly records: readonly ArtifactRecord[];
  contract: ReportStepContract | null;
  /** When the step's trace (or last record) was written: where interrupted records are attached. */
  readonly recordedAt: string | null;
}

/**
 * The steps of a run: one per execution in its timeline, then the definition's nodes or steps that never ran
 * (from the state), ordered by start (not-run ones last, in definition order). Keys are not set yet.
 */
export function draftSteps(
  runId: RunId,
  timeline: RunTimeline,
  source: RunSource,
): { readonly drafts: StepDraft[]; readonly unattached: readonly ArtifactRecord[] } {
  const drafts: StepDraft[] = timeline.steps.map((step) =>
    step.content === null ? ingestDraft(runId, step) : executionDraft(step, source.kind),
  );
  // A graph node's manifest is rewritten by each execution: it belongs to the last one that ingested.
  const lastIngest = new Map<string, StepDraft>();
  for (const draft of drafts) if (draft.manifestPath !== null) lastIngest.set(draft.id, draft);
  const withManifests = drafts.map((draft) =>
    draft.manifestPath !== null && lastIngest.get(draft.id) !== draft
      ? { ...draft, manifestPath: null }
      : draft,
  );
  const ran = new Set(withManifests.map((draft) => draft.id));
  if (source.kind === 'graph' && source.state !== null) {
    for (const [id, node] of Object.entries(source.state.nodes)) {
      if (ran.has(id)) continue;
      withManifests.push({
        ...notRun(id, 'node', node.status),
        agent: node.agent ?? null,
        promptSha256: node.prompt_sha256 ?? null,
        startedAt: node.started_at ?? null,
        finishedAt: node.finished_at ?? null,
        durationMs: spanMs(node.started_at ?? null, node.finished_at ?? null),
        error: node.error ?? null,
        manifestPath: node.ingest?.manifest_path ?? null,
      });
    }
  }
  if (source.kind === 'workflow' && source.state !== null) {
    const state = source.state;
    const current = passId(state);
    // The current pass is running until it has a trace; a pass re-asked with a fix request runs again.
    const lastPass = withManifests.findLast((draft) => draft.id === current);
    if (state.status === 'running' && (lastPass === undefined || lastPass.status === 'failed'))
      withManifests.push({ ...notRun(current, 'step', 'running'), startedAt: state.step_started_at });
    source.stepIds.forEach((id, index) => {
      if (index > state.step_index)
        withManifests.push(notRun(id, 'step', state.status === 'running' ? 'pending' : 'skipped'));
    });
  }
  startAfterPrevious(withManifests);
  attachContracts(withManifests, source);
  const unattached = attachUnfinished(withManifests, timeline.unfinished);
  // A node known only from the state (its trace unreadable, or interrupted) may still have its document's record.
  const documented = withManifests.map((draft) =>
    draft.document === null && draft.kind !== 'ingest'
      ? { ...draft, document: documentRecord(draft.records) }
      : draft,
  );
  return { drafts: sortByStart(documented), unattached };
}

function executionDraft(step: TimelineStep, kind: RunSource['kind']): StepDraft {
  const content = step.content;
  if (content === null) throw new TypeError('an execution draft needs its trace content');
  return {
    id: step.taskId,
    kind: kind === 'workflow' ? 'step' : 'node',
    status: content.outcome,
    // A write_file node's trace says `runtime`: no agent wrote it.
    agent: content.agent === 'runtime' ? null : content.agent,
    attempt: content.attempt,
    promptSha256: content.promptSha256,
    startedAt: content.startedAt,
    finishedAt: content.finishedAt,
    durationMs: content.durationMs,
    error: content.error ?? null,
    document: content.document ?? documentRecord(step.artifacts),
    manifestPath: content.ingest?.manifest_path ?? null,
    records: step.artifacts,
    contract: null,
    reconciliation: content.reconciliation ?? null,
    recordedAt: step.trace?.createdAt ?? null,
  };
}

/** An ingest of `ingest --run-id`: its document is the record at its manifest's doc_path. */
function ingestDraft(runId: RunId, step: TimelineStep): StepDraft {
  const times = step.artifacts.map((record) => record.createdAt);
  const startedAt = step.manifest?.ts ?? times[0] ?? null;
  const finishedAt = times.at(-1) ?? startedAt;
  const docPath = step.manifest?.docPath;
  const docRecord = step.artifacts.find((record) => record.path === docPath);
  return {
    id: step.taskId,
    kind: 'ingest',
    status: 'completed',
    agent: step.agentId,
    attempt: 1,
    promptSha256: null,
    startedAt,
    finishedAt,
    durationMs: spanMs(startedAt, finishedAt),
    error: null,
    document: documentRecord(docRecord === undefined ? [] : [docRecord]),
    manifestPath: step.manifest?.path ?? (isNodeId(step.taskId) ? manifestPath(runId, step.taskId) : null),
    records: step.artifacts,
    contract: null,
    reconciliation: null,
    recordedAt: finishedAt,
  };
}

/** A failed execution's trace names no document, but the document it wrote is its `message` record. */
function documentRecord(records: readonly ArtifactRecord[]): DocumentRef | null {
  const record = records.findLast((candidate) => candidate.type === 'message');
  return record === undefined
    ? null
    : {
        path: record.path,
        sha256: record.contentHash.slice('sha256:'.length),
        bytes: record.metadata.bytes,
      };
}

/** A step with nothing recorded yet: no times, no document, no records; callers fill in what they know. */
export function notRun(id: string, kind: StepDraft['kind'], status: ReportStepStatus): StepDraft {
  return {
    id,
    kind,
    status,
    agent: null,
    attempt: 1,
    promptSha256: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
    error: null,
    document: null,
    manifestPath: null,
    records: [],
    contract: null,
    reconciliation: null,
    recordedAt: null,
  };
}

/** The node id of a workflow's current pass: `step`, or `step-<n>` for a loop task or ralph iteration. */
function passId(state: NonNullable<Extract<RunSource, { kind: 'workflow' }>['state']>): string {
  const pass = state.task?.index ?? state.ralphIteration;
  return pass === undefined ? state.step : `${state.step}-${String(pass)}`;
}

/**
 * An execution starts no earlier than the previous execution of its node or step finished: a workflow pass
 * re-asked with a fix request keeps the pass's `step_started_at`, so its trace (and the running re-ask) would
 * start with its first attempt; it really started when the fix request went out, as that attempt finished.
 */
function startAfterPrevious(drafts: StepDraft[]): void {
  const finished = new Map<string, number>();
  drafts.forEach((draft, index) => {
    const previous = finished.get(draft.id);
    const start = draft.startedAt === null ? NaN : Date.parse(draft.startedAt);
    if (previous !== undefined && start < previous) {
      const startedAt = new Date(previous).toISOString();
      drafts[index] = { ...draft, startedAt, durationMs: spanMs(startedAt, draft.finishedAt) };
    }
    const end = draft.finishedAt === null ? NaN : Date.parse(draft.finishedAt);
    if (Number.isFinite(end)) finished.set(draft.id, end);
  });
}

/** A graph node's contract verdict goes to its last execution; a workflow's to its current pass. */
function attachContracts(drafts: StepDraft[], source: RunSource): void {
  // The verdict is on the execution that was judged, not on a re-ask still running.
  const lastOf = (id: string): StepDraft | undefined =>
    drafts.findLast((draft) => draft.id === id && draft.recordedAt !== null) ??
    drafts.findLast((draft) => draft.id === id);
  if (source.kind === 'graph' && source.state !== null) {
    for (const [id, node] of Object.entries(source.state.nodes)) {
      const draft = lastOf(id);
      if (draft === undefined || node.contract === undefined) continue;
      const contract = node.contract;
      draft.contract = {
        type: contract.type,
        state: contract.state,
        attempts: contract.attempts,
        artifact: contract.artifact ?? null,
        reason: contract.reason ?? null,
        errors: (contract.errors ?? []).map((error) => ({ ...error, got: error.got ?? null })),
      };
    }
  }
  if (source.kind === 'workflow' && source.state?.contract !== undefined) {
    const contract = source.state.contract;
    const draft = lastOf(passId(source.state));
    if (draft === undefined) return;
    draft.contract = {
      type: contract.type,
      state: contract.state,
      attempts: contract.fix_attempt + 1,
      artifact: contract.artifact ?? null,
      reason: contract.reason ?? null,
      errors: contract.errors.map((error) => ({ ...error, got: error.got ?? null })),
    };
  }
}

/**
 * Versions no trace of their own task follows: an interrupted node (its not-run draft) or files registered
 * during a workflow pass under the step's id; each goes to the first step of its task (or pass) recorded after it.
 */
function attachUnfinished(drafts: StepDraft[], unfinished: readonly ArtifactRecord[]): ArtifactRecord[] {
  const unattached: ArtifactRecord[] = [];
  for (const record of unfinished) {
    const mine = (draft: StepDraft): boolean =>
      draft.id === record.taskId || draft.id.startsWith(`${record.taskId}-`);
    const index =
      [drafts.findIndex((draft) => draft.id === record.taskId && draft.recordedAt === null)]
        .concat(
          drafts.findIndex(
            (draft) =>
              mine(draft) &&
              draft.recordedAt !== null &&
              Date.parse(draft.recordedAt) >= Date.parse(record.createdAt),
          ),
        )
        .find((found) => found !== -1) ?? -1;
    const draft = drafts[index];
    if (draft === undefined) unattached.push(record);
    else drafts[index] = { ...draft, records: [...draft.records, record] };
  }
  return unattached;
}

/** By start time (as instants), steps without one last; a stable sort keeps execution and definition order. */
export function sortByStart(drafts: readonly StepDraft[]): StepDraft[] {
  const at = (draft: StepDraft): number =>
    draft.startedAt === null ? Infinity : Date.parse(draft.startedAt) || Infinity;
  return [...drafts].sort((a, b) => (at(a) === at(b) ? 0 : at(a) < at(b) ? -1 : 1));
}

/** Milliseconds between two ISO times, or null when either is missing. */
export function spanMs(start: string | null, end: string | null): number | null {
  if (start === null || end === null) return null;
  const span = Date.parse(end) - Date.parse(start);
  return Number.isFinite(span) ? Math.max(0, span) : null;
}
