import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { artifactIdOf } from '../../src/artifacts/artifact-record.js';
import type { ArtifactRecord } from '../../src/artifacts/artifact-record.js';
import { artifactRecordsPath, objectPath, parseNodeId, parseRunId } from '../../src/project/index.js';

/**
 * Writes a run of one node that recorded `count` workspace files, each with its own object, straight into
 * `.agent/runs/<runId>/artifacts.jsonl` and `.agent/objects` (as the recorder lays them out, without its per-record
 * cost): the shape of a `write_file` node whose document held `count` file blocks. Returns the records.
 */
export async function writeWideRun(
  projectDir: string,
  runId: string,
  count: number,
): Promise<ArtifactRecord[]> {
  const run = parseRunId(runId);
  const taskId = parseNodeId('write');
  const records: ArtifactRecord[] = [];
  const folders = new Set<string>();
  for (let index = 0; index < count; index += 1) {
    // Distinct, incompressible-looking content per file, so the archive is not one long run of zeros.
    const bytes = Buffer.from(
      `${createHash('sha256')
        .update(`${runId}/${String(index)}`)
        .digest('base64')}\n`,
    );
    const hex = createHash('sha256').update(bytes).digest('hex');
    const contentHash = `sha256:${hex}`;
    const file = path.join(projectDir, objectPath(hex));
    if (!folders.has(path.dirname(file))) {
      await mkdir(path.dirname(file), { recursive: true });
      folders.add(path.dirname(file));
    }
    await writeFile(file, bytes, { mode: 0o444 });
    const workspacePath = `workspace/files/${String(index).padStart(5, '0')}.txt`;
    records.push({
      artifactId: artifactIdOf({ runId: run, taskId, path: workspacePath, contentHash }),
      runId: run,
      taskId,
      agentId: 'runtime',
      type: 'file',
      path: workspacePath,
      contentHash,
      createdAt: new Date(Date.UTC(2026, 1, 24, 10, 0, 0, index)).toISOString(),
      metadata: { language: 'text', bytes: bytes.length, linesAdded: 1, linesRemoved: 0, source: 'ingest' },
    });
  }
  const recordsFile = path.join(projectDir, artifactRecordsPath(run));
  await mkdir(path.dirname(recordsFile), { recursive: true });
  await writeFile(recordsFile, records.map((record) => `${JSON.stringify(record)}\n`).join(''));
  return records;
}
