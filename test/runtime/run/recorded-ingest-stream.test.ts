import { access, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createIngestStream, ingestDocument } from '../../../src/index.js';
import type { IngestStreamEvent } from '../../../src/index.js';
import { createIngestStream as streamOnly, objectWriterThread } from '../../../src/ingest/index.js';
import type { ObjectWriter } from '../../../src/ingest/index.js';
import { STREAM_HELD_BYTES } from '../../../src/ingest/kept-bytes.js';
import { recordLibraryIngest } from '../../../src/runtime/run/recorded-ingest.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { objectPathOf } from '../../../src/store/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';

const ids = { runId: 'run-1', nodeId: 'plan', docPath: 'docs/plan.md', durability: 'none' } as const;
const now = (): Date => new Date('2026-11-28T12:00:00.000Z');

/**
 * The library's recorded stream with its objects sent to `writer` in place of the object writer thread, and every
 * block placed on the calling thread (as `createIngestStream` makes it, but for that).
 */
function recordedStream(
  projectDir: string,
  writer: ObjectWriter,
): TransformStream<string, IngestStreamEvent> {
  const options = { projectDir, ...ids, now };
  return streamOnly(
    {
      ...options,
      onPlaced: (placed) =>
        recordLibraryIngest(
          options,
          { runId: parseRunId(ids.runId), nodeId: parseNodeId(ids.nodeId) },
          placed,
        ),
    },
    { recordsInProjectStore: true, objectWriter: writer, placer: null },
  );
}

/** A writer that never loads and sends nothing: the stream's records write every object themselves. */
const noWriter: ObjectWriter = { ready: false, write: () => undefined };

/** Whether the object of `sha` (a file's sha256) is in the project's object store. */
function storedIn(projectDir: string): (sha: string | undefined) => Promise<boolean> {
  return (sha) =>
    access(path.join(projectDir, '.agent/objects', objectPathOf(sha ?? ''))).then(
      () => true,
      () => false,
    );
}

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
    // No thread: what is an object before the end is the budget's doing alone.
    const stream = recordedStream(streamedDir, noWriter);
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
    const stored = storedIn(streamedDir);
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

  it('has the object of each file it places written while it streams (D134), and records as ingestDocument does', async () => {
    const files = Array.from({ length: 40 }, (_, n) =>
      fileBlock('ts', `src/m${String(n)}.ts`, `export const m${String(n)} = '${'y'.repeat(2000)}';`),
    );
    const text = files.join('\n');
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
    for (let at = 0; at < text.length; at += 100) await writer.write(text.slice(at, at + 100));
    expect(written).toHaveLength(40);
    // The stream is still open: nothing has recorded yet, and the thread stores the objects all the same.
    const stored = storedIn(streamedDir);
    for (let tries = 0; !(await Promise.all(written.map(stored))).every(Boolean); tries++) {
      if (tries > 400) throw new Error('the objects were not written while the stream was open');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await expect(access(path.join(streamedDir, '.agent/runs/run-1/artifacts.jsonl'))).rejects.toThrow();
    await writer.close();
    await reading;
    expect(await recordsOf(streamedDir)).toEqual(await recordsOf(postWritten));
  }, 30_000);

  it('records every object itself when no object writer thread is to be had', async () => {
    const files = Array.from({ length: 40 }, (_, n) =>
      fileBlock('ts', `src/n${String(n)}.ts`, `export const n${String(n)} = ${String(n)};`),
    );
    const text = files.join('\n');
    const postWritten = await tempProject({ [ids.docPath]: text });
    await ingestDocument({ projectDir: postWritten, ...ids, now });

    const streamedDir = await tempProject();
    // A writer that takes every batch and never answers, and never loads: the end must not wait on it.
    const silent: ObjectWriter = { ready: false, write: () => new Promise<boolean>(() => undefined) };
    const stream = recordedStream(streamedDir, silent);
    const written: string[] = [];
    const reading = (async () => {
      for await (const event of stream.readable)
        if (event.type === 'block.written') written.push(event.block.sha256);
    })();
    const writer = stream.writable.getWriter();
    await writer.write(text);
    await writer.close();
    await reading;
    expect(written).toHaveLength(40);
    expect((await Promise.all(written.map(storedIn(streamedDir)))).every(Boolean)).toBe(true);
    expect(await recordsOf(streamedDir)).toEqual(await recordsOf(postWritten));
  });
});

describe('createIngestStream and the placing thread (D135)', () => {
  const text = Array.from({ length: 40 }, (_, n) =>
    fileBlock('ts', `src/p${String(n)}.ts`, `export const p${String(n)} = ${String(n)};`),
  ).join('\n');

  async function streamWith(durability: 'fsync' | 'none'): Promise<number> {
    const thread = objectWriterThread();
    thread.start();
    await vi.waitFor(
      () => {
        expect(thread.ready).toBe(true);
      },
      { timeout: 30_000 },
    );
    // The process's own thread, counted (not replaced): how many blocks the stream asked it to place.
    const place = vi.spyOn(thread, 'place');
    try {
      const postWritten = await tempProject({ [ids.docPath]: text });
      await ingestDocument({ projectDir: postWritten, ...ids, durability, now });
      const streamedDir = await tempProject();
      const stream = createIngestStream({ projectDir: streamedDir, ...ids, durability, now });
      const reading = stream.readable.pipeTo(new WritableStream());
      const writer = stream.writable.getWriter();
      for (let at = 0; at < text.length; at += 50) await writer.write(text.slice(at, at + 50));
      await writer.close();
      await reading;
      expect(await recordsOf(streamedDir)).toEqual(await recordsOf(postWritten));
      return place.mock.calls.length;
    } finally {
      place.mockRestore();
    }
  }

  it('places the blocks past the 32nd in the thread with durability fsync, where each placement waits on the disk', async () => {
    expect(await streamWith('fsync')).toBe(8);
  }, 60_000);

  it('places every block on the calling thread without durability, where a placement is all CPU', async () => {
    expect(await streamWith('none')).toBe(0);
  }, 60_000);
});
