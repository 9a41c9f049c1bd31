import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createIngestStream, ingestDocument } from '../../../src/index.js';
import { STREAM_HELD_BYTES } from '../../../src/ingest/kept-bytes.js';
import { objectPathOf } from '../../../src/store/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';

const ids = { runId: 'run-1', nodeId: 'plan', docPath: 'docs/plan.md', durability: 'none' } as const;
const now = (): Date => new Date('2026-11-28T12:00:00.000Z');

/** The run's artifact records, one object per line. */
async function recordsOf(projectDir: string): Promise<unknown[]> {
  const text = await readFile(path.join(projectDir, '.agent/runs/run-1/artifacts.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as unknown);
}

describe('createIngestStream (the library export)', () => {
  it('records the files it placed as ingestDocument records them, only the last version of a repeated path', async () => {
    const text = [
      fileBlock('ts', 'src/a.ts', 'v1'),
      fileBlock('ts', 'src/b.ts', 'b'),
      fileBlock('ts', 'src/a.ts', 'v2'),
      '```ts file=../out.ts\nx\n```\n',
    ].join('\n');
    const postWritten = await tempProject({ [ids.docPath]: text });
    await ingestDocument({ projectDir: postWritten, ...ids, now });

    const streamedDir = await tempProject();
    const stream = createIngestStream({ projectDir: streamedDir, ...ids, now });
    const writer = stream.writable.getWriter();
    const reading = stream.readable.pipeTo(new WritableStream());
    for (let at = 0; at < text.length; at += 5) await writer.write(text.slice(at, at + 5));
    await writer.close();
    await reading;

    const records = await recordsOf(streamedDir);
    expect(records).toEqual(await recordsOf(postWritten));
    expect(records).toMatchObject([{ path: 'workspace/src/b.ts' }, { path: 'workspace/src/a.ts' }]);
  });

  it('keeps the bytes of files past STREAM_HELD_BYTES in the object store while it streams, and records them all as ingestDocument does', async () => {
    // 1 MiB files, more of them than the stream holds in memory; a rewritten path and an edit block among them.
    const body = (n: number): string =>
      `// file ${String(n)}\n${`${'x'.repeat(60)} ${String(n)}\n`.repeat(16_000)}`;
    const files = Array.from({ length: 6 }, (_, n) => fileBlock('ts', `src/f${String(n)}.ts`, body(n)));
    const text = [
      ...files,
      fileBlock('ts', 'src/f1.ts', body(10)),
      '```diff file=src/f5.ts\n@@ -1,1 +1,1 @@\n-// file 5\n+// file 5, edited\n```\n',
    ].join('\n');
    expect(6 * body(0).length).toBeGreaterThan(STREAM_HELD_BYTES);
    const postWritten = await tempProject({ [ids.docPath]: text });
    await ingestDocument({ projectDir: postWritten, ...ids, now });

    const streamedDir = await tempProject();
    const stream = createIngestStream({ projectDir: streamedDir, ...ids, now });
    const writer = stream.writable.getWriter();
    const written: string[] = [];
    const reading = (async () => {
      for await (const event of stream.readable)
        if (event.type === 'block.written') written.push(event.block.sha256);
    })();
    const chunk = 64 * 1024;
    for (let at = 0; at < text.length; at += chunk) await writer.write(text.slice(at, at + chunk));
    // Before the end: the files past the first 4 MiB are objects of the store already (those their records name);
    // the first ones are still held in memory, and no record is written yet.
    const stored = (sha: string | undefined): Promise<boolean> =>
      access(path.join(streamedDir, '.agent/objects', objectPathOf(sha ?? ''))).then(
        () => true,
        () => false,
      );
    expect(written).toHaveLength(8);
    expect(await Promise.all(written.map(stored))).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
    await writer.close();
    await reading;

    const records = await recordsOf(streamedDir);
    expect(records).toEqual(await recordsOf(postWritten));
    expect(records).toHaveLength(7);
  });
});
