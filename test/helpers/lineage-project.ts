import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { openArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import type { ArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import type { TraceContent } from '../../src/artifacts/trace-content.js';
import { tempProject } from './temp-project.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

const GRAPH = { name: 'team', hash: createHash('sha256').update('graph: team').digest('hex') };

/** A clock that moves one second per reading, so every record and trace time is distinct and known. */
export interface SteppingClock {
  /** The next instant (one second after the previous one). */
  readonly tick: () => Date;
  /** Moves the clock forward without reading it. */
  readonly advance: (ms: number) => void;
}

/** A clock starting at `start` that advances one second per tick. */
export function steppingClock(start = '2026-02-24T10:00:00.000Z'): SteppingClock {
  let now = Date.parse(start);
  return {
    tick: () => {
      now += 1000;
      return new Date(now);
    },
    advance: (ms) => {
      now += ms;
    },
  };
}

/** Records runs into a real project the way the runtime does: versions, then a trace at the end of each execution. */
export interface LineageWriter {
  readonly projectDir: string;
  readonly clock: SteppingClock;
  /** Starts a node execution: reads the clock for its trace's startedAt. */
  start(runId: string, nodeId: string, agent: string, attempt?: number): Execution;
  close(): Promise<void>;
}

/** One node execution being recorded. */
export interface Execution {
  /** Records versions (workspace-relative keys go under workspace/, `docs/...` keys are node documents) and writes them to the live workspace. */
  write(files: Record<string, string | Uint8Array>): Promise<ArtifactRecord[]>;
  /** Writes the execution's trace. */
  finish(outcome?: 'completed' | 'failed'): Promise<ArtifactRecord>;
}

/** Opens a writer on a fresh temp project (or `projectDir`). */
export async function lineageWriter(projectDir?: string): Promise<LineageWriter> {
  const dir = projectDir ?? (await tempProject());
  const clock = steppingClock();
  const recorder: ArtifactRecorder = await openArtifactRecorder(dir, {
    now: clock.tick,
    durability: 'none',
  });
  return {
    projectDir: dir,
    clock,
    start: (runId, nodeId, agent, attempt = 1) => {
      const startedAt = clock.tick().toISOString();
      return {
        write: async (files) => {
          const inputs = Object.entries(files).map(([key, content]) => {
            const document = key.startsWith('docs/');
            const projectPath = document ? key : `workspace/${key}`;
            return {
              runId: parseRunId(runId),
              taskId: parseNodeId(nodeId),
              agentId: agent,
              kind: document ? ('message' as const) : ('file' as const),
              path: projectPath,
              bytes: typeof content === 'string' ? new TextEncoder().encode(content) : content,
              source: 'ingest' as const,
            };
          });
          for (const input of inputs) {
            const target = path.join(dir, input.path);
            await mkdir(path.dirname(target), { recursive: true });
            await writeFile(target, input.bytes);
          }
          return recorder.recordVersions(inputs);
        },
        finish: async (outcome = 'completed') => {
          const finishedAt = clock.tick().toISOString();
          const trace: TraceContent = {
            version: 1,
            runId: parseRunId(runId),
            nodeId: parseNodeId(nodeId),
            agent,
            graph: GRAPH,
            promptSha256: createHash('sha256').update(`prompt of ${nodeId}`).digest('hex'),
            attempt,
            startedAt,
            finishedAt,
            durationMs: Date.parse(finishedAt) - Date.parse(startedAt),
            outcome,
            ...(outcome === 'failed'
              ? { error: { code: 'agent_failed', message: `${nodeId} gave up` } }
              : {}),
            ingest: {
              total_blocks: 1,
              written: 1,
              skipped: 0,
              rejected: 0,
              manifest_path: `.agent/runs/${runId}/manifests/${nodeId}.json`,
              problems: [],
            },
          };
          return recorder.recordTrace({
            runId: parseRunId(runId),
            taskId: parseNodeId(nodeId),
            agentId: agent,
            trace,
          });
        },
      };
    },
    close: () => recorder.close(),
  };
}

/** The bytes of the PNG the fixture writes: not UTF-8, so replay names it binary. */
export const LOGO_PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00]);

/** File contents of the two-run project, by name, so tests can spell the expected trees. */
export const TEXT = {
  readme1: '# Links\n',
  readme2: '# Links\n\nShorten a URL with POST /links.\n',
  ui: 'export const ui = 1;\n',
  ui2: 'export const ui = 2;\n',
  api1: 'export function api() {\n  return 1;\n}\n',
  api2: 'export function api() {\n  return 2;\n}\n',
  shared: 'export const shared = true;\n',
  test1: "test('api', () => {});\n",
  test2: "test('api', () => {\n  expect(api()).toBe(2);\n});\n",
  plan: '# Plan\n\n1. api\n2. ui\n',
} as const;

/** Times the two-run project's tests cut at. */
export interface TwoRunTimes {
  /** After run-001's last record and before run-002's first. */
  readonly betweenRuns: string;
  /** Run-001's failed execution has finished, its retry has not yet written. */
  readonly afterFailure: string;
}

/**
 * Builds a project with two runs of the team graph:
 * run-001: 1 plan (docs/plan.md, README v1); 2 ui and 3 api running at once (records interleave: api.ts,
 * ui.ts, shared.ts, ui's trace, api's trace); a failed test attempt (test v1); 4 its retry (test v2).
 * run-002, an hour later: 1 fix (api v2, assets/logo.png); 2 docs (README v2); then ui2 writes ui.ts v2 and
 * is interrupted (no trace).
 */
export async function twoRunProject(): Promise<{ projectDir: string; times: TwoRunTimes }> {
  const writer = await lineageWriter();
  const plan = writer.start('run-001', 'plan', 'planner');
  await plan.write({ 'docs/plan.md': TEXT.plan, 'README.md': TEXT.readme1 });
  await plan.finish();
  const api = writer.start('run-001', 'api', 'builder');
  const ui = writer.start('run-001', 'ui', 'designer');
  await api.write({ 'src/api.ts': TEXT.api1 });
  await ui.write({ 'src/ui.ts': TEXT.ui });
  await api.write({ 'src/shared.ts': TEXT.shared });
  await ui.finish();
  await api.finish();
  const test = writer.start('run-001', 'test', 'tester');
  await test.write({ 'test/api.test.ts': TEXT.test1 });
  const failed = await test.finish('failed');
  const retry = writer.start('run-001', 'test', 'tester', 2);
  await retry.write({ 'test/api.test.ts': TEXT.test2 });
  const last = await retry.finish();

  writer.clock.advance(3_600_000);
  const fix = writer.start('run-002', 'fix', 'builder');
  await fix.write({ 'src/api.ts': TEXT.api2, 'assets/logo.png': LOGO_PNG });
  await fix.finish();
  const docs = writer.start('run-002', 'docs', 'writer');
  await docs.write({ 'README.md': TEXT.readme2 });
  await docs.finish();
  const ui2 = writer.start('run-002', 'ui2', 'designer');
  await ui2.write({ 'src/ui.ts': TEXT.ui2 });
  await writer.close();
  return {
    projectDir: writer.projectDir,
    times: {
      betweenRuns: new Date(Date.parse(last.createdAt) + 60_000).toISOString(),
      afterFailure: new Date(Date.parse(failed.createdAt) + 500).toISOString(),
    },
  };
}

/** Every regular file below `dir` as relative path -> bytes (an absent dir reads as empty). */
export async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const tree = new Map<string, Buffer>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return tree;
    throw error;
  }
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    tree.set(path.relative(dir, full).split(path.sep).join('/'), await readFile(full));
  }
  return new Map([...tree].sort(([a], [b]) => (a < b ? -1 : 1)));
}

/** A tree spelled as relative path -> text or bytes, in the shape {@link readTree} returns. */
export function treeOf(files: Record<string, string | Uint8Array>): Map<string, Buffer> {
  return new Map(
    Object.entries(files)
      .map(([name, content]): [string, Buffer] => [name, Buffer.from(content)])
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}
