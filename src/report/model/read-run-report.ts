import { openVersionDiffer, readRunTimeline, readLinkedVersions } from '../../artifacts/index.js';
import type { ArtifactRecord, ObjectStore } from '../../artifacts/index.js';
import { readTerminal } from '../../contracts/index.js';
import type { TerminalState } from '../../contracts/index.js';
import { readRunEvents } from '../../events/index.js';
import { describeError, OBJECTS_DIR, parseRunId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { Project, ProjectRef } from '../../store/index.js';
import { assignLanes } from './assign-lanes.js';
import { draftSteps } from './draft-steps.js';
import type { StepDraft } from './draft-steps.js';
import { readIngestEnabled } from './read-ingest-enabled.js';
import { readIngestOnlyDrafts } from './read-ingest-only-drafts.js';
import { readReportContracts } from './read-report-contracts.js';
import { readReportLinks } from './read-report-links.js';
import { readReportVerify } from './read-report-verify.js';
import { readRunSource } from './read-run-source.js';
import { readStepBlocks } from './read-step-blocks.js';
import { readStepDocument } from './read-step-document.js';
import { createReportBudget } from './report-budget.js';
import type { ReportBudget } from './report-budget.js';
import { reportDiff, shellWord } from './report-diff.js';
import { resolveReportCaps } from './report-limits.js';
import type { RunReportOptions } from './report-limits.js';
import { reportRunHeader } from './report-run-header.js';
import type { ReportFile, ReportProblem, ReportStep, RunReport } from './run-report.js';

/**
 * Reads everything the report of one run shows from its state, records, traces, manifests, objects, events and
 * contract artifacts, reading only; throws UnknownRunError for a run that does not exist, and reports whatever
 * it cannot read as `problems` instead of throwing.
 */
export function readRunReport(
  project: ProjectRef,
  runId: string,
  options: RunReportOptions = {},
): Promise<RunReport> {
  return usingProject(project, (opened) => readReport(opened, runId, options));
}

async function readReport(project: Project, runId: string, options: RunReportOptions): Promise<RunReport> {
  const caps = resolveReportCaps(options);
  const budget = createReportBudget(caps);
  const timeline = await readRunTimeline(project, runId);
  const id = parseRunId(timeline.runId, 'run id');
  const source = await readRunSource(project, id);
  const problems: ReportProblem[] = [
    ...timeline.problems.map(({ code, message }) => ({ code, message })),
    ...source.problems,
  ];
  const drafted = draftSteps(id, timeline, source);
  const drafts =
    source.kind === 'ingest' ? await readIngestOnlyDrafts(project, id, drafted.drafts) : drafted.drafts;
  if (drafted.unattached.length > 0) {
    problems.push({
      code: 'unattached_versions',
      message: `${String(drafted.unattached.length)} version record(s) belong to no step of the run (an interrupted execution); see them with 'artifact-ingest replay ${shellWord(id)}'`,
    });
  }

  const built = await buildSteps(project, id, drafts, budget, problems);
  const lanes = assignLanes(built.steps);
  const steps = built.steps.map((step, index) => ({ ...step, lane: lanes[index] ?? 0 }));
  const terminal = await readTerminalLoosely(project, id, problems);
  // A workflow hands its agent one step (one pass) at a time, so its concurrency is 1 by design.
  const concurrency =
    source.kind === 'graph' ? await readConcurrency(project, id) : source.kind === 'workflow' ? 1 : null;
  // A graph state keeps the flag and an `ingest --run-id` run is an ingest; a workflow's is read off its files.
  const ingestEnabled =
    source.kind === 'ingest' || (source.kind === 'graph' && source.state !== null)
      ? null
      : await readIngestEnabled(project, id, timeline);
  const checks = options.checks ?? true;
  const contracts = checks
    ? await readReportContracts(project, id, caps.maxDocumentBytes)
    : { contracts: [], problems: [] };
  problems.push(...contracts.problems);
  const verify = checks
    ? await readReportVerify(project, id, caps.maxProblems)
    : { verify: null, problems: [] };
  problems.push(...verify.problems);

  return {
    reportVersion: 1,
    run: reportRunHeader({
      runId: id,
      source,
      timeline,
      steps,
      terminal,
      concurrency,
      ingestMode: built.ingestMode,
      ingestEnabled,
    }),
    steps,
    contracts: contracts.contracts,
    verify: verify.verify,
    limits: budget.limits(`artifact-ingest replay ${shellWord(id)} --backward`),
    problems: capProblems(problems, caps.maxProblems),
    links: await readReportLinks(project, id, options.gitRepo ?? project.dir),
  };
}

/** Reads each draft's document, blocks and file diffs, in step order, so the caps keep the earliest steps whole. */
async function buildSteps(
  project: Project,
  runId: RunId,
  drafts: readonly StepDraft[],
  budget: ReportBudget,
  problems: ReportProblem[],
): Promise<{ readonly steps: Omit<ReportStep, 'lane'>[]; readonly ingestMode: string | null }> {
  const needsObjects = drafts.some((draft) => draft.document !== null || draft.records.length > 0);
  // Read-only: opening the files store's objects creates .agent/objects, so a project without one is not given one.
  const hasStore = needsObjects && (await project.store.list(OBJECTS_DIR)).length > 0;
  const store: ObjectStore | null = hasStore ? await project.store.openObjects() : null;
  const linked = hasStore
    ? await readLinkedVersions(
        project,
        drafts.flatMap((draft) => draft.records),
      )
    : new Map();
  const differ = openVersionDiffer(project, linked);
  const seen = new Map<string, number>();
  let ingestMode: string | null = null;
  const steps: Omit<ReportStep, 'lane'>[] = [];
  try {
    for (const draft of drafts) {
      const occurrence = (seen.get(draft.id) ?? 0) + 1;
      seen.set(draft.id, occurrence);
      const document = draft.document === null ? null : await readStepDocument(store, draft.document, budget);
      if (document?.unavailable != null && !document.unavailable.startsWith('left out'))
        problems.push({
          code: 'unavailable_document',
          message: `document of ${draft.id}: ${document.unavailable}`,
        });
      let blocks: ReportStep['blocks'] = [];
      let blocksOmitted = 0;
      if (draft.manifestPath !== null) {
        const read = await readStepBlocks(project, draft.manifestPath);
        if ('problem' in read) problems.push(read.problem);
        else {
          blocks = read.blocks.slice(0, budget.takeBlocks(read.blocks.length));
          blocksOmitted = read.blocks.length - blocks.length;
          ingestMode ??= read.manifest.source.mode;
        }
      }
      const versions = draft.records.filter((record) => record.path !== draft.document?.path);
      const listed = versions.slice(0, budget.takeFiles(versions.length));
      const files: ReportFile[] = [];
      for (const record of listed)
        files.push(await reportFile(record, hasStore ? differ : null, budget, runId));
      steps.push({
        key: occurrence === 1 ? draft.id : `${draft.id}#${String(occurrence)}`,
        id: draft.id,
        kind: draft.kind,
        status: draft.status,
        agent: draft.agent,
        attempt: draft.attempt,
        promptSha256: draft.promptSha256,
        startedAt: draft.startedAt,
        finishedAt: draft.finishedAt,
        durationMs: draft.durationMs,
        error: draft.error,
        document,
        blocks,
        blocksOmitted,
        files,
        filesOmitted: versions.length - listed.length,
        contract: draft.contract,
        reconciliation: draft.reconciliation,
      });
    }
  } finally {
    await differ.close();
    await store?.close();
  }
  return { steps, ingestMode };
}

async function reportFile(
  record: ArtifactRecord,
  differ: ReturnType<typeof openVersionDiffer> | null,
  budget: ReportBudget,
  runId: RunId,
): Promise<ReportFile> {
  const previous = record.metadata.previous ?? null;
  const version = {
    path: record.path,
    artifactId: record.artifactId,
    contentHash: record.contentHash,
    previous,
  };
  return {
    path: record.path,
    artifactId: record.artifactId,
    contentHash: record.contentHash,
    change: previous === null ? 'created' : 'changed',
    previous,
    bytes: record.metadata.bytes,
    linesAdded: record.metadata.linesAdded,
    linesRemoved: record.metadata.linesRemoved,
    diff:
      differ === null
        ? {
            kind: 'unavailable',
            reason: 'missing_object',
            message: `no diff for ${record.path}: the project has no object store`,
          }
        : await reportDiff(differ, budget, version, runId),
  };
}

async function readTerminalLoosely(
  project: Project,
  runId: RunId,
  problems: ReportProblem[],
): Promise<TerminalState | null> {
  try {
    return (await readTerminal(project, runId)) ?? null;
  } catch (error) {
    problems.push({
      code: 'unreadable_terminal',
      message: `the run's terminal.json cannot be read (${describeError(error)}); the terminal state is not shown`,
    });
    return null;
  }
}

/** The concurrency of the run's latest `run.started` event (a resume may change it), read line by line. */
async function readConcurrency(project: Project, runId: RunId): Promise<number | null> {
  let concurrency: number | null = null;
  try {
    for await (const event of readRunEvents(project, runId, '"run.started"')) {
      const value = event['concurrency'];
      if (event['event'] === 'run.started' && typeof value === 'number' && Number.isSafeInteger(value))
        concurrency = value;
    }
  } catch {
    // The events are a log, not a record: an unreadable one leaves the concurrency unknown.
    return concurrency;
  }
  return concurrency;
}

/** At most `max` problems, the last one saying how many more there were. */
function capProblems(problems: readonly ReportProblem[], max: number): ReportProblem[] {
  if (problems.length <= max) return [...problems];
  const kept = problems.slice(0, Math.max(0, max - 1));
  return [
    ...kept,
    {
      code: 'more_problems',
      message: `${String(problems.length - kept.length)} more problem(s) left out; run 'artifact-ingest verify' and 'artifact-ingest replay' for all of them`,
    },
  ];
}
