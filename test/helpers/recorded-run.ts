import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { bundleRun } from '../../src/artifacts/bundle/bundle-run.js';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import { openArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import type { TraceContent } from '../../src/artifacts/trace-content.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import type { ProjectRef } from '../../src/store/index.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A small PNG-like binary (not UTF-8), recorded as a `design`. */
export const DIAGRAM = Uint8Array.from([
  0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00, 0xfe, 0x01,
]);

/**
 * Records a realistic three-node run into `project` through the real recorder (versions, a changed file
 * with a `previous` link, a binary design, traces), plus the plain run files the runtime writes: state.json,
 * events.jsonl and manifests/ (by path into a project folder, through the store into a `Project`). Returns the
 * records in file order.
 */
export async function recordRun(
  project: ProjectRef,
  runId: string,
  options: { readonly startAt?: string; readonly apiText?: string } = {},
): Promise<ArtifactRecord[]> {
  let tick = Date.parse(options.startAt ?? '2026-02-24T10:00:00.000Z');
  const now = (): Date => new Date((tick += 1000));
  const recorder = await openArtifactRecorder(project, { now, durability: 'none' });
  const records: ArtifactRecord[] = [];
  const trace = (
    nodeId: string,
    agent: string,
    attempt: number,
    outcome: TraceContent['outcome'],
  ): TraceContent => ({
    version: 1,
    runId: parseRunId(runId),
    nodeId: parseNodeId(nodeId),
    agent,
    graph: { name: 'team', hash: sha('graph team v1') },
    promptSha256: sha(`prompt of ${nodeId}`),
    attempt,
    startedAt: new Date(tick).toISOString(),
    finishedAt: new Date(tick + 500).toISOString(),
    durationMs: 500,
    outcome,
    ...(outcome === 'failed' ? { error: { code: 'agent_failed', message: 'exit code 1' } } : {}),
    document: { path: `docs/${nodeId}.md`, sha256: sha(nodeId), bytes: 42 },
    ingest: {
      total_blocks: 2,
      written: 2,
      skipped: 0,
      rejected: 0,
      manifest_path: `.agent/runs/${runId}/manifests/${nodeId}.json`,
      problems: [],
    },
  });
  try {
    const version = (
      taskId: string,
      agentId: string,
      kind: 'file' | 'message',
      file: string,
      bytes: Uint8Array,
    ) => ({
      runId: parseRunId(runId),
      taskId: parseNodeId(taskId),
      agentId,
      kind,
      path: file,
      bytes,
      source: kind === 'message' ? ('runtime' as const) : ('ingest' as const),
    });
    records.push(
      ...(await recorder.recordVersions([
        version('plan', 'planner', 'message', 'docs/plan.md', bytesOf('# Plan\n\nBuild the API.\n')),
      ])),
      await recorder.recordTrace({
        runId: parseRunId(runId),
        taskId: parseNodeId('plan'),
        agentId: 'planner',
        trace: trace('plan', 'planner', 1, 'completed'),
      }),
      ...(await recorder.recordVersions([
        version(
          'build',
          'builder',
          'file',
          'workspace/src/api.ts',
          bytesOf(options.apiText ?? 'export const api = 1;\n'),
        ),
        version('build', 'builder', 'file', 'workspace/docs/arch.png', DIAGRAM),
        version('build', 'builder', 'message', 'docs/build.md', bytesOf('# Build\n')),
      ])),
      await recorder.recordTrace({
        runId: parseRunId(runId),
        taskId: parseNodeId('build'),
        agentId: 'builder',
        trace: trace('build', 'builder', 1, 'completed'),
      }),
      ...(await recorder.recordVersions([
        version(
          'fix',
          'builder',
          'file',
          'workspace/src/api.ts',
          bytesOf('export const api = 2;\nexport const ok = true;\n'),
        ),
      ])),
      await recorder.recordTrace({
        runId: parseRunId(runId),
        taskId: parseNodeId('fix'),
        agentId: 'builder',
        trace: trace('fix', 'builder', 2, 'failed'),
      }),
    );
  } finally {
    await recorder.close();
  }
  const write =
    typeof project === 'string'
      ? (relative: string, text: string) => writeFile(path.join(project, relative), text)
      : (relative: string, text: string) => project.store.replace(relative, text, { durability: 'none' });
  const runDir = `.agent/runs/${runId}`;
  if (typeof project === 'string') await mkdir(path.join(project, runDir, 'manifests'), { recursive: true });
  await write(
    `${runDir}/state.json`,
    `${JSON.stringify({ version: 1, run_id: runId, status: 'failed', graph: { name: 'team', hash: sha('graph team v1'), source: 'builtin' } }, null, 2)}\n`,
  );
  await write(
    `${runDir}/events.jsonl`,
    `{"level":"info","event":"run.started","run_id":"${runId}"}\n{"level":"error","event":"node.failed","node_id":"fix"}\n`,
  );
  for (const node of ['plan', 'build']) {
    await write(
      `${runDir}/manifests/${node}.json`,
      `${JSON.stringify({ run_id: runId, node_id: node, summary: { written: 2, skipped: 0, rejected: 0 } })}\n`,
    );
  }
  return records;
}

/** Every regular file below `dir` as relative path -> bytes (hex), for byte-for-byte folder comparisons. */
export async function folderFiles(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, absolute).split(path.sep).join('/')] = (await readFile(absolute)).toString(
      'hex',
    );
  }
  return files;
}

/** A recorded project and its run bundled: `source` the project, `file` the bundle beside it. */
export interface BundledRun {
  readonly source: string;
  readonly file: string;
}

/**
 * For a test file whose tests only read one recorded run and its bundle: the run is recorded and bundled once, on
 * the first call, and its folder removed after the file's tests. None of the tests may change either.
 */
export function shareBundledRun(runId: string): () => Promise<BundledRun> {
  let shared: Promise<BundledRun> | undefined;
  let folder = '';
  afterAll(async () => {
    if (folder !== '') await rm(folder, { recursive: true, force: true });
  });
  return () =>
    (shared ??= (async () => {
      folder = await mkdtemp(path.join(tmpdir(), 'ai-shared-bundle-'));
      const source = path.join(folder, 'source');
      await mkdir(source);
      await recordRun(source, runId);
      const file = path.join(folder, 'run.tar.gz');
      await bundleRun(source, runId, file);
      return { source, file };
    })());
}
