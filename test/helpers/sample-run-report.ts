import type { ReportFile, ReportStep, RunReport } from '../../src/report/index.js';

const HASH_A = 'a'.repeat(64);
const HASH_B = 'b'.repeat(64);

/** A file version a step recorded, with every field filled in; `overrides` change any of them. */
export function sampleFile(overrides: Partial<ReportFile> = {}): ReportFile {
  return {
    path: 'workspace/src/app.ts',
    artifactId: 'art-1',
    contentHash: `sha256:${HASH_A}`,
    change: 'created',
    previous: null,
    bytes: 120,
    linesAdded: 6,
    linesRemoved: 0,
    diff: { kind: 'text', patch: '', truncated: false },
    ...overrides,
  };
}

/** A completed graph node that wrote a document and one file; `overrides` change any field. */
export function sampleStep(overrides: Partial<ReportStep> = {}): ReportStep {
  return {
    key: 'plan',
    id: 'plan',
    kind: 'node',
    status: 'completed',
    agent: 'planner',
    attempt: 1,
    promptSha256: HASH_B,
    startedAt: '2026-01-02T03:04:05.000Z',
    finishedAt: '2026-01-02T03:04:07.500Z',
    durationMs: 2500,
    lane: 0,
    error: null,
    document: {
      path: 'docs/plan.md',
      sha256: HASH_B,
      bytes: 300,
      markdown: null,
      truncated: false,
      unavailable: null,
    },
    blocks: [],
    files: [sampleFile()],
    contract: null,
    reconciliation: null,
    ...overrides,
  };
}

/** A completed graph run `run-1` of definition `team` with the given steps (default: one {@link sampleStep}). */
export function sampleRunReport(
  steps: readonly ReportStep[] = [sampleStep()],
  run: Partial<RunReport['run']> = {},
): RunReport {
  return {
    reportVersion: 1,
    run: {
      runId: 'run-1',
      kind: 'graph',
      definition: { name: 'team', hash: 'c'.repeat(64), source: 'builtin:team' },
      mode: 'team',
      status: 'completed',
      terminal: null,
      startedAt: '2026-01-02T03:04:00.000Z',
      finishedAt: '2026-01-02T03:05:00.000Z',
      durationMs: 60_000,
      inputs: {},
      ingestEnabled: true,
      concurrency: 2,
      budgets: null,
      counts: { completed: steps.length, failed: 0, skipped: 0, pending: 0, running: 0 },
      ...run,
    },
    steps,
    contracts: [],
    verify: {
      ok: true,
      errors: 0,
      warnings: 0,
      objects: { checked: 0, ok: 0 },
      workspaceFiles: { checked: 0, ok: 0 },
      problems: [],
    },
    limits: {
      maxDiffLines: 400,
      maxDiffBytesTotal: 1_000_000,
      maxDocumentBytes: 100_000,
      maxDocumentBytesTotal: 1_000_000,
      maxProblems: 20,
      diffsOmitted: 0,
      diffsTruncated: 0,
      documentsTruncated: 0,
      documentsOmitted: 0,
      replayCommand: 'artifact-ingest replay run-1 --backward',
    },
    problems: [],
    links: { traceId: '0af7651916cd43dd8448eb211c80319c', liveTraceIds: [], commits: [] },
  };
}
