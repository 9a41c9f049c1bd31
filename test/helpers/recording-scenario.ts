import { createHash } from 'node:crypto';
import { lstat, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { openArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import type { ArtifactVersionInput } from '../../src/artifacts/record/record-artifacts.js';
import type { TraceContent } from '../../src/artifacts/trace-content.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

/** One file below `.agent/` after the scenario: its mode and its text (record files) or sha256 (objects). */
export interface RecordedFile {
  readonly path: string;
  readonly mode: string;
  readonly text?: string;
  readonly sha256?: string;
}

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

function version(
  run: string,
  task: string,
  path: string,
  content: string | Uint8Array,
  extra: Partial<ArtifactVersionInput> = {},
): ArtifactVersionInput {
  return {
    runId: parseRunId(run),
    taskId: parseNodeId(task),
    agentId: 'builder-01',
    kind: 'file',
    path,
    bytes: typeof content === 'string' ? text(content) : content,
    source: 'ingest',
    ...extra,
  };
}

/** A completed trace of `task` in `run` with fixed times, made by graph `graph`. */
export function traceOf(run: string, task: string, graph = 'scenario'): TraceContent {
  return {
    version: 1,
    runId: parseRunId(run),
    nodeId: parseNodeId(task),
    agent: 'builder-01',
    graph: { name: graph, hash: 'a'.repeat(64) },
    promptSha256: 'b'.repeat(64),
    attempt: 1,
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:01.000Z',
    durationMs: 1000,
    outcome: 'completed',
  };
}

/**
 * Records a fixed scenario with a ticking clock: versions linked within a batch and across batches and runs,
 * idempotent re-records, `changed: false`, a message, a design file, binary content, shared content and traces.
 * Every recorder call of it is in the golden fixtures/artifacts/recording/expected.json (the bytes recording
 * wrote before issue 14), so a faster recorder must write the same files.
 */
export async function recordScenario(projectDir: string, durability: 'fsync' | 'none'): Promise<void> {
  let tick = 0;
  const now = (): Date => new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * tick++);
  const recorder = await openArtifactRecorder(projectDir, { now, durability });
  try {
    await recorder.recordVersions([
      version('run-001', 'plan', 'docs/plan.md', '# Plan\n\nStep one.\n', {
        kind: 'message',
        language: 'markdown',
        source: 'runtime',
      }),
      version('run-001', 'plan', 'workspace/src/a.ts', 'export const a = 1;\n'),
      // Two versions of one path in one batch: the second links to the first.
      version('run-001', 'plan', 'workspace/src/a.ts', 'export const a = 2;\nexport const b = 3;\n'),
      version('run-001', 'plan', 'workspace/img/flow.svg', '<svg></svg>\n'),
      version('run-001', 'plan', 'workspace/bin/blob.dat', new Uint8Array([0, 255, 254, 10, 1])),
      // The same content at a second path: one object, two records.
      version('run-001', 'plan', 'workspace/src/copy.ts', 'export const a = 1;\n', { language: '' }),
    ]);
    await recorder.recordTrace({
      runId: parseRunId('run-001'),
      taskId: parseNodeId('plan'),
      agentId: 'builder-01',
      trace: traceOf('run-001', 'plan'),
    });
    await recorder.recordVersions([
      // The same content at the same place: not recorded again.
      version('run-001', 'plan', 'workspace/src/a.ts', 'export const a = 2;\nexport const b = 3;\n'),
      // Unchanged bytes matching the last version: not recorded.
      version('run-001', 'build', 'workspace/src/copy.ts', 'export const a = 1;\n', { changed: false }),
      // Unchanged bytes differing from the last version: recorded, linked.
      version('run-001', 'build', 'workspace/img/flow.svg', '<svg><g/></svg>\n', { changed: false }),
      version('run-001', 'build', 'workspace/bin/blob.dat', 'now text\n'),
    ]);
    await recorder.recordVersions([]);
    await recorder.recordVersions([
      version('run-002', 'plan', 'docs/plan.md', '# Plan\n\nStep one.\nStep two.\n', {
        kind: 'message',
        language: 'markdown',
        source: 'runtime',
      }),
      version('run-002', 'plan', 'workspace/src/a.ts', 'export const a = 1;\n'),
      version('run-002', 'plan', 'workspace/src/a.ts', 'export const a = 1;\n'),
      version('run-002', 'fix', 'workspace/src/a.ts', 'export const a = 1;\n'),
      version('run-002', 'fix', 'workspace/contract.json', '{"ok":true}\n', {
        source: 'submit',
        contract: 'review',
        language: 'json',
      }),
    ]);
    await recorder.recordTrace({
      runId: parseRunId('run-002'),
      taskId: parseNodeId('fix'),
      agentId: 'builder-01',
      trace: traceOf('run-002', 'fix'),
    });
  } finally {
    await recorder.close();
  }
}

/** Every file below `<projectDir>/.agent`, sorted by path: record files with their text, objects by sha256. */
export async function recordedFiles(projectDir: string): Promise<RecordedFile[]> {
  const agent = path.join(projectDir, '.agent');
  const files: RecordedFile[] = [];
  for (const entry of await readdir(agent, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(agent, absolute).split(path.sep).join('/');
    const mode = ((await lstat(absolute)).mode & 0o7777).toString(8);
    const bytes = await readFile(absolute);
    files.push(
      relative.endsWith('.jsonl')
        ? { path: relative, mode, text: bytes.toString('utf8') }
        : { path: relative, mode, sha256: createHash('sha256').update(bytes).digest('hex') },
    );
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
