import { describe, expect, it } from 'vitest';
import {
  CUSTOM_FACET_KEYS,
  facetSourcesFor,
  lineageRunUuid,
  openLineageEventsOf,
  runEventSchema,
} from '../../../src/report/index.js';
import type { RunEvent, RunReport } from '../../../src/report/index.js';
import { specProblemsOf } from '../../helpers/openlineage-spec.js';
import { sampleFile, sampleRunReport, sampleStep } from '../../helpers/sample-run-report.js';

const sources = facetSourcesFor('0.1.0');

function eventsOf(report: RunReport, namespace?: string): RunEvent[] {
  const events = openLineageEventsOf(report, {
    ...sources,
    ...(namespace === undefined ? {} : { namespace }),
  });
  for (const event of events) {
    expect(specProblemsOf(event)).toEqual([]);
    expect(runEventSchema.safeParse(event).error?.issues ?? []).toEqual([]);
  }
  return events;
}

const summary = (events: readonly RunEvent[]) =>
  events.map((event) => `${event.job.name} ${event.eventType}`);

const twoSteps = sampleRunReport([
  sampleStep(),
  sampleStep({
    key: 'review',
    id: 'review',
    agent: 'reviewer',
    startedAt: '2026-01-02T03:04:08.000Z',
    finishedAt: '2026-01-02T03:04:20.000Z',
    document: null,
    files: [
      sampleFile({
        path: 'workspace/src/app.ts',
        contentHash: `sha256:${'d'.repeat(64)}`,
        change: 'changed',
        previous: 'art-1',
        linesAdded: 2,
        linesRemoved: 1,
        artifactId: 'art-2',
      }),
    ],
  }),
]);

describe('openLineageEventsOf', () => {
  it('gives the run a START and a COMPLETE around a START and COMPLETE per step, in time order', () => {
    const events = eventsOf(twoSteps);
    expect(summary(events)).toEqual([
      'team START',
      'team.plan START',
      'team.plan COMPLETE',
      'team.review START',
      'team.review COMPLETE',
      'team COMPLETE',
    ]);
    const times = events.map((event) => Date.parse(event.eventTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events.map((event) => event.eventTime)).toEqual([
      '2026-01-02T03:04:00.000Z',
      '2026-01-02T03:04:05.000Z',
      '2026-01-02T03:04:07.500Z',
      '2026-01-02T03:04:08.000Z',
      '2026-01-02T03:04:20.000Z',
      '2026-01-02T03:05:00.000Z',
    ]);
  });

  it('names jobs and datasets in the namespace given, artifact-ingest by default', () => {
    expect(new Set(eventsOf(twoSteps).map((event) => event.job.namespace))).toEqual(
      new Set(['artifact-ingest']),
    );
    const events = eventsOf(twoSteps, 'team-a');
    expect(
      new Set(
        events.flatMap((event) => [event.job.namespace, ...(event.outputs ?? []).map((d) => d.namespace)]),
      ),
    ).toEqual(new Set(['team-a']));
  });

  it('points every step at the run as its parent and root, and gives each run a stable UUID', () => {
    const events = eventsOf(twoSteps);
    const runUuid = lineageRunUuid('artifact-ingest', 'run-1', null);
    expect(events[0]?.run.runId).toBe(runUuid);
    const plan = events[1]!;
    expect(plan.run.runId).toBe(lineageRunUuid('artifact-ingest', 'run-1', 'plan'));
    expect(plan.run.facets?.['parent']).toMatchObject({
      run: { runId: runUuid },
      job: { namespace: 'artifact-ingest', name: 'team' },
      root: { run: { runId: runUuid }, job: { namespace: 'artifact-ingest', name: 'team' } },
    });
    expect(events[0]?.run.facets?.['parent']).toBeUndefined();
    expect(eventsOf(twoSteps)).toEqual(events);
  });

  it('gives a second attempt of a node its own run of the same job', () => {
    const events = eventsOf(
      sampleRunReport([
        sampleStep({ status: 'failed', error: { code: 'fix_needed', message: 'still wrong' } }),
        sampleStep({
          key: 'plan#2',
          attempt: 2,
          startedAt: '2026-01-02T03:04:10.000Z',
          finishedAt: '2026-01-02T03:04:11.000Z',
        }),
      ]),
    );
    const starts = events.filter((event) => event.job.name === 'team.plan' && event.eventType === 'START');
    expect(starts.map((event) => event.run.runId)).toEqual([
      lineageRunUuid('artifact-ingest', 'run-1', 'plan'),
      lineageRunUuid('artifact-ingest', 'run-1', 'plan#2'),
    ]);
  });

  it('reads the document as input and writes each file as output with its version and our facet', () => {
    const [, start, complete] = eventsOf(twoSteps);
    const input = { namespace: 'artifact-ingest', name: 'docs/plan.md' };
    expect(start?.inputs).toMatchObject([
      { ...input, facets: { version: { datasetVersion: `sha256:${'b'.repeat(64)}` } } },
    ]);
    expect(start?.outputs).toBeUndefined();
    expect(complete?.inputs).toMatchObject([input]);
    expect(complete?.outputs).toMatchObject([
      {
        namespace: 'artifact-ingest',
        name: 'workspace/src/app.ts',
        facets: {
          version: { datasetVersion: `sha256:${'a'.repeat(64)}` },
          [CUSTOM_FACET_KEYS.version]: {
            contentHash: `sha256:${'a'.repeat(64)}`,
            bytes: 120,
            linesAdded: 6,
            linesRemoved: 0,
            change: 'created',
            artifactId: 'art-1',
            previous: null,
            _producer: 'https://github.com/artifact-ingest/artifact-ingest/tree/v0.1.0',
            _schemaURL:
              'https://raw.githubusercontent.com/artifact-ingest/artifact-ingest/v0.1.0/docs/openlineage-facets.schema.json#/$defs/ArtifactIngestVersionDatasetFacet',
          },
        },
      },
    ]);
  });

  it('carries the agent and the definition hash as run facets, and the job type as a job facet', () => {
    const [run, step] = eventsOf(twoSteps);
    expect(run?.run.facets?.[CUSTOM_FACET_KEYS.definition]).toMatchObject({
      runId: 'run-1',
      kind: 'graph',
      name: 'team',
      hash: 'c'.repeat(64),
    });
    expect(run?.run.facets?.[CUSTOM_FACET_KEYS.agent]).toBeUndefined();
    expect(run?.job.facets?.['jobType']).toMatchObject({
      processingType: 'BATCH',
      integration: 'ARTIFACT_INGEST',
      jobType: 'GRAPH',
    });
    expect(step?.run.facets?.[CUSTOM_FACET_KEYS.agent]).toMatchObject({
      agent: 'planner',
      attempt: 1,
      promptSha256: 'b'.repeat(64),
      stepKey: 'plan',
    });
    expect(step?.run.facets?.[CUSTOM_FACET_KEYS.definition]).toMatchObject({ hash: 'c'.repeat(64) });
    expect(step?.job.facets?.['jobType']).toMatchObject({ jobType: 'NODE' });
  });

  it('leaves the agent facet out for a step without an agent', () => {
    const events = eventsOf(sampleRunReport([sampleStep({ agent: null })]));
    expect(events[1]?.run.facets?.[CUSTOM_FACET_KEYS.agent]).toBeUndefined();
  });

  it('ends a failed step with FAIL and its error, and a blocked run with FAIL, errorMessage and its terminal state', () => {
    const report = sampleRunReport(
      [sampleStep({ status: 'failed', error: { code: 'blocked', message: 'smoke tests fail' }, files: [] })],
      {
        status: 'failed',
        terminal: {
          state: 'blocked',
          artifact: '.agent/artifacts/run-1/issues.json',
          reason: 'smoke tests fail',
          at: '2026-01-02T03:05:00.000Z',
        },
      },
    );
    const events = eventsOf(report);
    expect(summary(events)).toEqual(['team START', 'team.plan START', 'team.plan FAIL', 'team FAIL']);
    expect(events[2]?.run.facets?.['errorMessage']).toMatchObject({
      message: 'blocked: smoke tests fail',
      programmingLanguage: 'TypeScript',
    });
    expect(events[2]?.outputs).toEqual([]);
    expect(events[3]?.run.facets?.['errorMessage']).toMatchObject({ message: 'blocked: smoke tests fail' });
    expect(events[3]?.run.facets?.[CUSTOM_FACET_KEYS.terminal]).toMatchObject({
      state: 'blocked',
      artifact: '.agent/artifacts/run-1/issues.json',
    });
    expect(events[1]?.run.facets?.['errorMessage']).toBeUndefined();
  });

  it('names the first failed step when a failed run declared no terminal state', () => {
    const events = eventsOf(
      sampleRunReport(
        [sampleStep({ status: 'failed', error: { code: 'timeout', message: 'agent took too long' } })],
        { status: 'failed' },
      ),
    );
    expect(events.at(-1)?.run.facets?.['errorMessage']).toMatchObject({
      message: 'step plan failed: timeout: agent took too long',
    });
  });

  it.each([
    ['completed', 'COMPLETE'],
    ['complete', 'COMPLETE'],
    ['failed', 'FAIL'],
    ['aborted', 'ABORT'],
    ['running', undefined],
  ])('ends a run whose status is %s with %s', (status, eventType) => {
    const events = eventsOf(sampleRunReport([sampleStep()], { status }));
    expect(events.at(-1)?.job.name === 'team' ? events.at(-1)?.eventType : undefined).toBe(eventType);
  });

  it('exports no events for steps that never ran, and only a START for a step still running', () => {
    const events = eventsOf(
      sampleRunReport(
        [
          sampleStep({ key: 'a', id: 'a', status: 'pending', startedAt: null, finishedAt: null }),
          sampleStep({ key: 'b', id: 'b', status: 'skipped', startedAt: null, finishedAt: null }),
          sampleStep({ key: 'c', id: 'c', status: 'running', finishedAt: null }),
        ],
        { status: 'running', finishedAt: null },
      ),
    );
    expect(summary(events)).toEqual(['team START', 'team.c START']);
  });

  it('starts the run at its first step when the run has no start time, and exports nothing without any time', () => {
    const noRunTimes = { startedAt: null, finishedAt: null };
    expect(eventsOf(sampleRunReport([sampleStep()], noRunTimes))[0]?.eventTime).toBe(
      '2026-01-02T03:04:05.000Z',
    );
    expect(eventsOf(sampleRunReport([sampleStep()], noRunTimes)).at(-1)?.eventTime).toBe(
      '2026-01-02T03:04:07.500Z',
    );
    expect(
      eventsOf(sampleRunReport([sampleStep({ startedAt: null, finishedAt: null })], noRunTimes)),
    ).toEqual([]);
  });

  it('names the jobs of a run without a definition after its kind', () => {
    const events = eventsOf(
      sampleRunReport([sampleStep({ kind: 'ingest', key: 'ingest-1', id: 'ingest-1' })], {
        kind: 'ingest',
        definition: null,
        mode: null,
      }),
    );
    expect(summary(events)).toEqual([
      'ingest START',
      'ingest.ingest-1 START',
      'ingest.ingest-1 COMPLETE',
      'ingest COMPLETE',
    ]);
    expect(events[0]?.run.facets?.[CUSTOM_FACET_KEYS.definition]).toMatchObject({ name: null, hash: null });
  });

  it('gives a path written twice by one step as one output, its last version', () => {
    const events = eventsOf(
      sampleRunReport([
        sampleStep({
          files: [sampleFile(), sampleFile({ artifactId: 'art-2', contentHash: `sha256:${'e'.repeat(64)}` })],
        }),
      ]),
    );
    expect(events[2]?.outputs?.map((output) => output.facets?.['version']?.['datasetVersion'])).toEqual([
      `sha256:${'e'.repeat(64)}`,
    ]);
  });
});

describe('the spec checks', () => {
  const [valid] = openLineageEventsOf(sampleRunReport(), sources);

  it.each([
    ['an eventType outside the spec', { eventType: 'DONE' }],
    ['an eventTime that is not a date-time', { eventTime: 'yesterday' }],
    ['a runId that is not a UUID', { run: { runId: 'run-1' } }],
    ['a producer that is not a URI', { producer: 'artifact-ingest' }],
    [
      'a facet without _schemaURL',
      { job: { namespace: 'n', name: 'j', facets: { jobType: { _producer: 'https://x.test' } } } },
    ],
    ['a job without a name', { job: { namespace: 'n' } }],
  ])('refuse %s, in the zod schema and in the vendored JSON Schema', (_, change) => {
    const event = { ...valid, ...change } as unknown as RunEvent;
    expect(runEventSchema.safeParse(event).success).toBe(false);
    expect(specProblemsOf(event)).not.toEqual([]);
  });

  it('refuse a standard facet without its required fields, in both', () => {
    const event = {
      ...valid!,
      job: {
        ...valid!.job,
        facets: { jobType: { _producer: 'https://x.test', _schemaURL: 'https://y.test' } },
      },
    };
    expect(runEventSchema.safeParse(event).success).toBe(false);
    expect(specProblemsOf(event).join('\n')).toMatch(/processingType/);
  });

  it('refuse a custom facet that breaks docs/openlineage-facets.schema.json', () => {
    const facet = valid!.run.facets![CUSTOM_FACET_KEYS.definition]!;
    const event = {
      ...valid!,
      run: { ...valid!.run, facets: { [CUSTOM_FACET_KEYS.definition]: { ...facet, kind: 'cron' } } },
    };
    expect(specProblemsOf(event).join('\n')).toMatch(/kind/);
  });
});
