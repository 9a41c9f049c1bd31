import type { ReportStep, RunReport } from '../model/index.js';
import {
  agentFacet,
  CUSTOM_FACET_KEYS,
  datasetVersionFacet,
  definitionFacet,
  errorMessageFacet,
  fileVersionFacet,
  jobTypeFacet,
  parentFacet,
  terminalFacet,
} from './lineage-facets.js';
import type { FacetSources } from './lineage-facets.js';
import { lineageRunUuid } from './lineage-run-uuid.js';
import { RUN_EVENT_SCHEMA_URL } from './run-event-schema.js';
import type { LineageDataset, LineageFacet, RunEvent } from './run-event-schema.js';

/** The job and dataset namespace when none is given. */
export const DEFAULT_LINEAGE_NAMESPACE = 'artifact-ingest';

/** How to name and attribute the events: the namespace (default `artifact-ingest`) and the facet sources. */
export interface OpenLineageOptions extends FacetSources {
  readonly namespace?: string;
}

type RunFacets = Record<string, LineageFacet>;

type EventType = 'START' | 'COMPLETE' | 'FAIL' | 'ABORT';

interface TimedEvent {
  readonly at: number;
  readonly event: RunEvent;
}

/**
 * The OpenLineage RunEvents of a run, in time order: START for the run, START and COMPLETE or FAIL for each step
 * that ran (a job `<definition>.<step id>` whose parent is the run), then the run's COMPLETE, FAIL or ABORT.
 * Steps that never started (pending, skipped) have no events; a run or step still running has no end event.
 */
export function openLineageEventsOf(report: RunReport, options: OpenLineageOptions): RunEvent[] {
  const namespace = options.namespace ?? DEFAULT_LINEAGE_NAMESPACE;
  const { run } = report;
  const runJob = { namespace, name: run.definition?.name ?? run.kind };
  const runUuid = lineageRunUuid(namespace, run.runId, null);
  const definition = definitionFacet(options, run);
  const parent = parentFacet(options, { runId: runUuid, ...runJob });

  const stepEvents = report.steps
    .flatMap((step, order) =>
      stepEventsOf(step, {
        namespace,
        runJobName: runJob.name,
        definition,
        parent,
        options,
        runId: run.runId,
      }).map((timed, phase) => ({ ...timed, order: order * 2 + phase })),
    )
    .sort((a, b) => a.at - b.at || a.order - b.order);

  // The run spans its steps even when its own times are missing or its clock disagrees with theirs.
  const start = earliest(millis(run.startedAt), stepEvents[0]?.at);
  if (start === undefined) return [];
  const runEvent = (eventType: EventType, at: number, runFacets: RunFacets): RunEvent => ({
    eventType,
    eventTime: new Date(at).toISOString(),
    producer: options.producer,
    schemaURL: RUN_EVENT_SCHEMA_URL,
    run: { runId: runUuid, facets: { [CUSTOM_FACET_KEYS.definition]: definition, ...runFacets } },
    job: { ...runJob, facets: { jobType: jobTypeFacet(options, run.kind.toUpperCase()) } },
  });

  const events = [runEvent('START', start, {}), ...stepEvents.map((timed) => timed.event)];
  const endType = runEndType(run.status);
  if (endType !== undefined) {
    const end = Math.max(start, millis(run.finishedAt) ?? start, stepEvents.at(-1)?.at ?? start);
    const facets: RunFacets = {};
    if (run.terminal !== null) facets[CUSTOM_FACET_KEYS.terminal] = terminalFacet(options, run.terminal);
    if (endType === 'FAIL') facets['errorMessage'] = errorMessageFacet(options, runFailure(report));
    events.push(runEvent(endType, end, facets));
  }
  return events;
}

interface StepContext {
  readonly namespace: string;
  readonly runJobName: string;
  readonly runId: string;
  readonly definition: ReturnType<typeof definitionFacet>;
  readonly parent: ReturnType<typeof parentFacet>;
  readonly options: OpenLineageOptions;
}

/** A step's START and its COMPLETE or FAIL; none for a step that did not start or has no time at all. */
function stepEventsOf(step: ReportStep, context: StepContext): TimedEvent[] {
  if (step.status === 'pending' || step.status === 'skipped') return [];
  const start = millis(step.startedAt) ?? millis(step.finishedAt);
  if (start === undefined) return [];
  const { namespace, options } = context;
  const runFacets: RunFacets = {
    parent: context.parent,
    [CUSTOM_FACET_KEYS.definition]: context.definition,
  };
  if (step.agent !== null) runFacets[CUSTOM_FACET_KEYS.agent] = agentFacet(options, step);
  const inputs: LineageDataset[] =
    step.document === null
      ? []
      : [
          {
            namespace,
            name: step.document.path,
            facets: { version: datasetVersionFacet(options, prefixed(step.document.sha256)) },
          },
        ];
  const runId = lineageRunUuid(namespace, context.runId, step.key);
  const event = (
    eventType: EventType,
    at: number,
    facets: RunFacets,
    outputs?: LineageDataset[],
  ): TimedEvent => ({
    at,
    event: {
      eventType,
      eventTime: new Date(at).toISOString(),
      producer: options.producer,
      schemaURL: RUN_EVENT_SCHEMA_URL,
      run: { runId, facets },
      job: {
        namespace,
        name: `${context.runJobName}.${step.id}`,
        facets: { jobType: jobTypeFacet(options, step.kind.toUpperCase()) },
      },
      inputs,
      ...(outputs === undefined ? {} : { outputs }),
    },
  });

  const events = [event('START', start, runFacets)];
  if (step.status === 'running') return events;
  const end = Math.max(start, millis(step.finishedAt) ?? start);
  const outputs = lastVersionByPath(step).map((file): LineageDataset => ({
    namespace,
    name: file.path,
    facets: {
      version: datasetVersionFacet(options, file.contentHash),
      [CUSTOM_FACET_KEYS.version]: fileVersionFacet(options, file),
    },
  }));
  if (step.status === 'completed') {
    events.push(event('COMPLETE', end, runFacets, outputs));
  } else {
    const failure = step.error === null ? 'the step failed' : `${step.error.code}: ${step.error.message}`;
    events.push(
      event('FAIL', end, { ...runFacets, errorMessage: errorMessageFacet(options, failure) }, outputs),
    );
  }
  return events;
}

/** One output per path: a step that wrote a path twice produced its last version. */
function lastVersionByPath(step: ReportStep): ReportStep['files'][number][] {
  return [...new Map(step.files.map((file) => [file.path, file])).values()];
}

/** The run's end by its state's status; a run still running (or of a status we do not know) has none yet. */
function runEndType(status: string): EventType | undefined {
  if (status === 'completed' || status === 'complete') return 'COMPLETE';
  if (status === 'failed') return 'FAIL';
  if (status === 'aborted') return 'ABORT';
  return undefined;
}

/** Why a run failed: its declared terminal state, else its first failed step, else its status. */
function runFailure(report: RunReport): string {
  const { terminal } = report.run;
  if (terminal !== null) return `${terminal.state}: ${terminal.reason}`;
  const failed = report.steps.find((step) => step.status === 'failed');
  if (failed?.error != null)
    return `step ${failed.key} failed: ${failed.error.code}: ${failed.error.message}`;
  return `the run ended ${report.run.status}`;
}

function prefixed(sha256: string): string {
  return sha256.startsWith('sha256:') ? sha256 : `sha256:${sha256}`;
}

function millis(time: string | null): number | undefined {
  if (time === null) return undefined;
  const at = Date.parse(time);
  return Number.isNaN(at) ? undefined : at;
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.min(a, b);
}
