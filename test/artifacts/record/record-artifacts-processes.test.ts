import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openArtifactRecorder } from '../../../src/artifacts/record/record-artifacts.js';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import { readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { readPathVersions } from '../../../src/artifacts/store/artifact-index.js';
import { verifyArtifacts } from '../../../src/artifacts/lineage/verify-artifacts.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { atScale } from '../../helpers/test-scale.js';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CHILD = fileURLToPath(new URL('./fixtures/record-child.ts', import.meta.url));

interface Child {
  readonly exited: Promise<{
    readonly code: number | null;
    readonly stdout: string;
    readonly stderr: string;
  }>;
  /** Resolves once the child printed `batch <n>` lines at least `count` times. */
  batches(count: number): Promise<void>;
  kill(): void;
}

function recordChild(args: readonly string[]): Child {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const waiting: { count: number; resolve: () => void }[] = [];
  const seen = (): number => stdout.split('\n').filter((line) => line.startsWith('batch ')).length;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString('utf8');
    for (const wait of waiting.filter((entry) => seen() >= entry.count)) wait.resolve();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    child.on('close', (code) => {
      for (const wait of waiting) wait.resolve();
      resolve({ code, stdout, stderr });
    });
  });
  return {
    exited,
    batches: (count) =>
      new Promise((resolve) => {
        if (seen() >= count) resolve();
        else waiting.push({ count, resolve });
      }),
    kill: () => child.kill('SIGKILL'),
  };
}

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('openArtifactRecorder across processes', () => {
  it('links to the version another process recorded between two calls of one recorder', async () => {
    const project = await tempProject();
    const times = ['2026-03-01T10:00:00.000Z', '2026-03-01T10:02:00.000Z'];
    const recorder = await openArtifactRecorder(project, {
      now: () => new Date(times.shift() ?? ''),
      durability: 'none',
    });
    const version = (runId: string, content: string) => ({
      runId: parseRunId(runId),
      taskId: parseNodeId('build'),
      agentId: 'parent',
      kind: 'file' as const,
      path: 'workspace/src/a.ts',
      bytes: text(content),
      source: 'ingest' as const,
    });
    const [first] = await recorder.recordVersions([version('run-001', 'one\n')]);
    const child = recordChild([
      'once',
      project,
      'run-002',
      'workspace/src/a.ts',
      'two\n',
      '2026-03-01T10:01:00.000Z',
    ]);
    const { code, stdout, stderr } = await child.exited;
    expect(code, stderr).toBe(0);
    const [theirs] = JSON.parse(stdout) as ArtifactRecord[];
    expect(theirs?.metadata.previous).toBe(first?.artifactId);
    const [third] = await recorder.recordVersions([version('run-003', 'three\n')]);
    await recorder.close();
    expect(third?.metadata.previous).toBe(theirs?.artifactId);
    expect(third?.metadata).toMatchObject({ linesAdded: 1, linesRemoved: 1 });
  });

  it('keeps every line whole and every record when two processes record the same paths at once', async () => {
    const project = await tempProject();
    const left = recordChild(['loop', project, 'run-left', '15']);
    const right = recordChild(['loop', project, 'run-right', '15']);
    const done = await Promise.all([left.exited, right.exited]);
    for (const { code, stderr } of done) expect(code, stderr).toBe(0);
    for (const runId of ['run-left', 'run-right']) {
      const read = await readArtifactRecords(project, runId);
      expect(read.problems).toEqual([]);
      expect(read.records).toHaveLength(45);
    }
    for (const slot of [0, 1, 2]) {
      const read = await readPathVersions(project, `docs/shared-${String(slot)}.md`);
      expect(read.problems).toEqual([]);
      expect(read.records).toHaveLength(30);
    }
    const report = await verifyArtifacts(project);
    expect(report.problems).toEqual([]);
  });

  it('never leaves a record naming a missing object when the recording process is killed at random points', async () => {
    const project = await tempProject();
    for (let attempt = 0; attempt < atScale(2, 6); attempt++) {
      const child = recordChild(['loop', project, `run-kill-${String(attempt)}`, '400']);
      await child.batches(1 + Math.floor(Math.random() * 4));
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 40));
      child.kill();
      await child.exited;
    }
    const report = await verifyArtifacts(project);
    expect(report.records).toBeGreaterThan(0);
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  }, 60_000);
});
