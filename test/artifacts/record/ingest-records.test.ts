import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openIngestRecords } from '../../../src/artifacts/record/ingest-records.js';
import type { RecordFailure } from '../../../src/artifacts/record/ingest-records.js';
import { readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import type { TraceContent } from '../../../src/artifacts/trace-content.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const text = (value: string): Uint8Array => new TextEncoder().encode(value);
const runId = parseRunId('run-001');
const plan = parseNodeId('plan');

function traceOf(nodeId: string): TraceContent {
  return {
    version: 1,
    runId,
    nodeId: parseNodeId(nodeId),
    agent: 'planner',
    graph: { name: 'single', hash: 'a'.repeat(64) },
    promptSha256: null,
    attempt: 1,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:01.000Z',
    durationMs: 1000,
    outcome: 'completed',
  };
}

function openFor(projectDir: string, failures: RecordFailure[]) {
  let tick = 0;
  return openIngestRecords({
    projectDir,
    runId,
    durability: 'none',
    now: () => new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * tick++),
    onFailure: (failure) => failures.push(failure),
  });
}

describe('openIngestRecords', () => {
  it('records a document, the files its ingest placed and the trace, in that order', async () => {
    const project = await tempProject();
    const failures: RecordFailure[] = [];
    const records = openFor(project, failures);
    await records.recordDocument({
      nodeId: plan,
      agentId: 'planner',
      outputPath: 'docs/plan.md',
      bytes: text('# plan\n'),
      changed: true,
    });
    await records.recordIngested(plan, 'planner', [
      { workspacePath: 'workspace/src/a.ts', lang: 'ts', bytes: text('a\n'), status: 'written' },
    ]);
    await records.recordTrace(traceOf('plan'));
    await records.close();
    const read = await readArtifactRecords(project, runId);
    expect(
      read.records.map((record) => [record.type, record.path, record.taskId, record.metadata.source]),
    ).toEqual([
      ['message', 'docs/plan.md', 'plan', 'runtime'],
      ['file', 'workspace/src/a.ts', 'plan', 'ingest'],
      ['trace', '.agent/runs/run-001/traces/plan.json', 'plan', 'runtime'],
    ]);
    expect(failures).toEqual([]);
  });

  it('records nothing and opens nothing for an ingest that placed no file', async () => {
    const project = await tempProject();
    const records = openFor(project, []);
    await records.recordIngested(plan, 'cli', [], 'docs/plan.md');
    await records.close();
    expect((await readArtifactRecords(project, runId)).records).toEqual([]);
  });

  it('reports a failure with its node and the document, redacts secrets, and never throws', async () => {
    const project = await tempProject();
    await mkdir(join(project, '.agent'));
    // A file where the object store's folder belongs: every recording fails.
    await writeFile(join(project, '.agent/objects'), 'not a directory');
    const failures: RecordFailure[] = [];
    const records = openFor(project, failures);
    const secret = 'sk-ant-api03-' + 'x'.repeat(40);
    await records.recordIngested(
      plan,
      'cli',
      [{ workspacePath: 'workspace/a.ts', lang: 'ts', bytes: text('a\n'), status: 'written' }],
      `docs/${secret}.md`,
    );
    await records.recordTrace(traceOf('plan'));
    await records.close();
    expect(failures.map((failure) => failure.nodeId)).toEqual(['plan', 'plan']);
    expect(failures[0]?.message).toMatch(
      /^the files of docs\/.*\.md were not recorded: .*; check that \.agent\/ is a writable directory$/,
    );
    expect(failures[1]?.message).toMatch(/^the trace of node plan was not recorded: /);
    for (const failure of failures) expect(failure.message).not.toContain(secret);
  });

  it('opens the recorder again after a failed open, so recording resumes once the cause is gone', async () => {
    const project = await tempProject();
    await mkdir(join(project, '.agent'));
    await writeFile(join(project, '.agent/objects'), 'not a directory');
    const failures: RecordFailure[] = [];
    const records = openFor(project, failures);
    const placed = [
      { workspacePath: 'workspace/a.ts', lang: 'ts', bytes: text('a\n'), status: 'written' as const },
    ];
    await records.recordIngested(plan, 'cli', placed);
    await rm(join(project, '.agent/objects'));
    await records.recordIngested(parseNodeId('build'), 'cli', placed);
    await records.close();
    expect(failures).toHaveLength(1);
    expect((await readArtifactRecords(project, runId)).records.map((record) => record.taskId)).toEqual([
      'build',
    ]);
  });

  it('keeps going when the failure reporter itself throws', async () => {
    const project = await tempProject();
    await mkdir(join(project, '.agent'));
    await writeFile(join(project, '.agent/objects'), 'not a directory');
    const records = openIngestRecords({
      projectDir: project,
      runId,
      onFailure: () => {
        throw new Error('reporter broken');
      },
    });
    await expect(records.recordTrace(traceOf('plan'))).resolves.toBeUndefined();
    await expect(records.close()).resolves.toBeUndefined();
  });
});
