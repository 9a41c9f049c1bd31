import { openArtifactRecorder } from '../../src/artifacts/index.js';
import type { ArtifactVersionInput, TraceContent } from '../../src/artifacts/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

const GRAPH_HASH = 'c'.repeat(64);

/** One step of a generated run: the node that ran and the workspace files it wrote (path -> text). */
interface Step {
  readonly runId: string;
  readonly node: string;
  readonly files: Record<string, string>;
}

function traceOf(runId: string, node: string, time: string): TraceContent {
  return {
    version: 1,
    runId: parseRunId(runId),
    nodeId: parseNodeId(node),
    agent: 'builder',
    graph: { name: 'history', hash: GRAPH_HASH },
    promptSha256: 'd'.repeat(64),
    attempt: 1,
    startedAt: time,
    finishedAt: time,
    durationMs: 0,
    outcome: 'completed',
  };
}

/**
 * Records `runs` runs of `steps` steps each through the real recorder, interleaved as concurrent runs are (step 1
 * of every run, then step 2 ...), with a clock that gives pairs of records the same millisecond, so other runs'
 * versions of one path tie in time. Each step writes `files` files out of a pool of `pool` paths shared by all
 * runs. Returns the run ids.
 */
export async function recordInterleavedRuns(
  projectDir: string,
  options: {
    readonly runs: number;
    readonly steps: number;
    readonly files: number;
    readonly pool: number;
    readonly startAt?: string;
    readonly prefix?: string;
  },
): Promise<string[]> {
  let tick = Date.parse(options.startAt ?? '2026-05-01T00:00:00.000Z');
  let calls = 0;
  // Two records per millisecond: every second call repeats the time before it.
  const now = (): Date => new Date(calls++ % 2 === 0 ? (tick += 1) : tick);
  const recorder = await openArtifactRecorder(projectDir, { now, durability: 'none' });
  const runIds = Array.from(
    { length: options.runs },
    (_, run) => `${options.prefix ?? 'run'}-${String(run).padStart(3, '0')}`,
  );
  const encoder = new TextEncoder();
  try {
    for (let step = 0; step < options.steps; step++) {
      for (const [run, runId] of runIds.entries()) {
        const node = `n${String(step)}`;
        const plan: Step = { runId, node, files: {} };
        for (let file = 0; file < options.files; file++) {
          const slot = (run * 7 + step * options.files + file) % options.pool;
          plan.files[`workspace/src/f${String(slot).padStart(3, '0')}.ts`] =
            `// ${runId} ${node} ${String(file)}\nexport const v = ${String(run * 1000 + step)};\n`;
        }
        const inputs: ArtifactVersionInput[] = Object.entries(plan.files).map(([path, text]) => ({
          runId: parseRunId(runId),
          taskId: parseNodeId(node),
          agentId: 'builder',
          kind: 'file',
          path,
          bytes: encoder.encode(text),
          source: 'ingest',
        }));
        await recorder.recordVersions(inputs);
        await recorder.recordTrace({
          runId: parseRunId(runId),
          taskId: parseNodeId(node),
          agentId: 'builder',
          trace: traceOf(runId, node, new Date(tick).toISOString()),
        });
      }
    }
  } finally {
    await recorder.close();
  }
  return runIds;
}
