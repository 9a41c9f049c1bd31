import { openArtifactRecorder } from '../../src/artifacts/record/record-artifacts.js';
import type { TraceContent } from '../../src/artifacts/trace-content.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

/** One recorder call: the versions of one node of one run (`docs/...` paths are its documents), then its trace. */
export interface RecordedStep {
  readonly runId: string;
  readonly taskId?: string;
  readonly agentId?: string;
  /** Project-relative path -> text, recorded in this order. */
  readonly files: Readonly<Record<string, string>>;
  readonly trace?: TraceContent;
}

/** Records `steps` into a real project, one second per record from 2026-03-01T10:00:00Z, objects without fsync. */
export async function recordSteps(projectDir: string, steps: readonly RecordedStep[]): Promise<void> {
  let tick = 0;
  const recorder = await openArtifactRecorder(projectDir, {
    now: () => new Date(Date.parse('2026-03-01T10:00:00.000Z') + 1000 * tick++),
    durability: 'none',
  });
  try {
    for (const step of steps) {
      const place = {
        runId: parseRunId(step.runId),
        taskId: parseNodeId(step.taskId ?? 'build'),
        agentId: step.agentId ?? 'builder-01',
      };
      await recorder.recordVersions(
        Object.entries(step.files).map(([path, text]) => ({
          ...place,
          kind: path.startsWith('docs/') ? ('message' as const) : ('file' as const),
          path,
          bytes: new TextEncoder().encode(text),
          source: 'ingest' as const,
        })),
      );
      if (step.trace !== undefined) await recorder.recordTrace({ ...place, trace: step.trace });
    }
  } finally {
    await recorder.close();
  }
}
