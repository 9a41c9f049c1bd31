import type { PathReport, ReportFile, ReportLimits, ReportStep, RunReport } from '../../src/report/index.js';

const HASH = 'a'.repeat(64);

/** Report limits with nothing left out. */
export function reportLimits(overrides: Partial<ReportLimits> = {}): ReportLimits {
  return {
    maxDiffLines: 400,
    maxDiffBytesTotal: 2 * 1024 * 1024,
    maxDocumentBytes: 64 * 1024,
    maxDocumentBytesTotal: 2 * 1024 * 1024,
    maxProblems: 50,
    diffsOmitted: 0,
    diffsTruncated: 0,
    documentsTruncated: 0,
    documentsOmitted: 0,
    replayCommand: 'artifact-ingest replay run-1 --backward',
    ...overrides,
  };
}

/** One file version with a small text diff. */
export function reportFile(path: string, overrides: Partial<ReportFile> = {}): ReportFile {
  return {
    path,
    artifactId: `art-${path}`,
    contentHash: HASH,
    change: 'created',
    previous: null,
    bytes: 42,
    linesAdded: 2,
    linesRemoved: 0,
    diff: {
      kind: 'text',
      patch: `--- ${path}\n+++ ${path}\n@@ -0,0 +1,2 @@\n+export const a = 1;\n+export const b = 2;\n`,
      truncated: false,
    },
    ...overrides,
  };
}

/** One completed node step that wrote a document with one written and one rejected block. */
export function reportStep(key: string, overrides: Partial<ReportStep> = {}): ReportStep {
  return {
    key,
    id: key,
    kind: 'node',
    status: 'completed',
    agent: 'builder',
    attempt: 1,
    promptSha256: HASH,
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.500Z',
    durationMs: 1500,
    lane: 0,
    error: null,
    document: {
      path: `docs/${key}.md`,
      sha256: HASH,
      bytes: 120,
      markdown: `# ${key}\n\nSome *text*.\n\n\`\`\`ts file=src/a.ts\nexport const a = 1;\n\`\`\`\n`,
      truncated: false,
      unavailable: null,
    },
    blocks: [
      {
        index: 0,
        lang: 'ts',
        declaredFile: 'src/a.ts',
        workspacePath: 'workspace/src/a.ts',
        bytes: 20,
        sha256: HASH,
        status: 'written',
        code: '',
        reason: '',
      },
      {
        index: 1,
        lang: 'sh',
        declaredFile: '../../etc/passwd',
        workspacePath: '',
        bytes: 10,
        sha256: HASH,
        status: 'rejected',
        code: 'traversal',
        reason: "file= path contains a '..' segment; paths must stay inside workspace/",
      },
    ],
    files: [reportFile('workspace/src/a.ts')],
    contract: null,
    reconciliation: null,
    ...overrides,
  };
}

/** A small graph run report: one completed step and one failed one, no contracts, verify clean. */
export function runReport(overrides: Partial<RunReport> = {}): RunReport {
  return {
    reportVersion: 1,
    run: {
      runId: 'run-1',
      kind: 'graph',
      definition: { name: 'team', hash: HASH, source: 'built-in' },
      mode: 'team',
      status: 'failed',
      terminal: null,
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:03.000Z',
      durationMs: 3000,
      inputs: { goal: 'a tiny URL shortener' },
      ingestEnabled: true,
      concurrency: 2,
      budgets: {
        agentCalls: 2,
        maxAgentCalls: 10,
        minutes: 0.05,
        maxMinutes: null,
        maxFixAttempts: null,
        exceeded: null,
      },
      counts: { completed: 1, failed: 1, skipped: 0, pending: 0, running: 0 },
    },
    steps: [
      reportStep('plan'),
      reportStep('build', {
        status: 'failed',
        lane: 1,
        startedAt: '2026-01-01T00:00:01.000Z',
        error: { code: 'agent_failed', message: 'the agent exited with code 1' },
        blocks: [],
        files: [],
        document: null,
      }),
    ],
    contracts: [],
    verify: {
      ok: true,
      errors: 0,
      warnings: 0,
      objects: { checked: 1, ok: 1 },
      workspaceFiles: { checked: 1, ok: 1 },
      problems: [],
    },
    limits: reportLimits(),
    problems: [],
    links: { traceId: '0af7651916cd43dd8448eb211c80319c', liveTraceIds: [], commits: [] },
    ...overrides,
  };
}

/** A path report with two versions of one file across two runs. */
export function pathReport(overrides: Partial<PathReport> = {}): PathReport {
  const version = {
    artifactId: 'art-1',
    runId: 'run-1',
    taskId: 'build',
    agentId: 'builder',
    type: 'file',
    createdAt: '2026-01-01T00:00:00.000Z',
    contentHash: HASH,
    bytes: 40,
    linesAdded: 2,
    linesRemoved: 0,
    previous: null,
    diff: { kind: 'text', patch: '@@ -0,0 +1,2 @@\n+one\n+two\n', truncated: false },
  } as const;
  return {
    reportVersion: 1,
    path: 'workspace/src/a.ts',
    versions: [
      version,
      {
        ...version,
        artifactId: 'art-2',
        runId: 'run-2',
        previous: 'art-1',
        linesAdded: 1,
        linesRemoved: 1,
        diff: { kind: 'text', patch: '@@ -1,2 +1,2 @@\n one\n-two\n+three\n', truncated: false },
      },
    ],
    limits: reportLimits(),
    problems: [],
    ...overrides,
  };
}

/**
 * Replaces every string in a value with a unique HTML payload (except the fields `keep` names), returning the copy
 * and each payload's field path.
 */
export function poisonStrings<T>(
  value: T,
  keep: (field: string) => boolean = () => false,
): {
  readonly poisoned: T;
  readonly payloads: readonly { readonly field: string; readonly payload: string }[];
} {
  const payloads: { field: string; payload: string }[] = [];
  const walk = (item: unknown, field: string): unknown => {
    if (typeof item === 'string' && !keep(field)) {
      const payload = `<b id="f${payloads.length}">'x'&amp;</b>`;
      payloads.push({ field, payload });
      return payload;
    }
    if (Array.isArray(item)) return item.map((element, index) => walk(element, `${field}[${index}]`));
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(
        Object.entries(item).map(([key, entry]) => [key, walk(entry, `${field}.${key}`)]),
      );
    return item;
  };
  return { poisoned: walk(value, '') as T, payloads };
}
