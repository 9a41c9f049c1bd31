/**
 * The calls the streaming bench measures (issue 28), shared by the section (streaming.ts) and its peak-memory child
 * (peak-memory-child.ts): a streamed and a post-write ingest of one text in a fresh project, and the peak memory
 * of one call.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ingestDocument } from '../../src/index.js';
import { recordedIngestStream } from '../../src/runtime/index.js';
import { objectWriterThread } from '../../src/ingest/index.js';
import type { IngestStreamEvent } from '../../src/index.js';
import { DEFAULT_INGEST_LIMITS } from '../../src/config/index.js';

export const DOCUMENT_BYTES = 1_000_000;
export const CHUNK = 20;

export async function freshProject(root: string, name: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(path.join(dir, 'docs'), { recursive: true });
  await mkdir(path.join(dir, 'workspace'), { recursive: true });
  return dir;
}

/**
 * Where the peak is read: Linux keeps each process's peak resident set (VmHWM in /proc/self/status) and resets it
 * to the present one when 5 is written to /proc/self/clear_refs, so the peak of one call is exact, unsampled, and
 * counts everything the call held: heap, garbage not yet collected, buffers. Elsewhere the heap is sampled.
 */
export const PEAK_RSS = ((): boolean => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return kilobytesOf('VmHWM') > 0;
  } catch {
    return false;
  }
})();

function kilobytesOf(field: 'VmHWM' | 'VmRSS'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(match?.[1] ?? 0);
}

/**
 * A full collection, so that what a call is measured from holds no garbage of the call before. `npm run bench` runs
 * without --expose-gc: the flag is then set at run time and `gc` taken from a new context, which has it.
 */
const fullCollection: () => unknown =
  globalThis.gc ??
  ((): (() => unknown) => {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => unknown;
  })();
const collectGarbage = (): void => {
  void fullCollection();
};

/** The highest memory use while `body` runs, above the use before it (see {@link PEAK_RSS}). */
export async function withPeakMemory<T>(body: () => Promise<T>): Promise<{ value: T; peakBytes: number }> {
  collectGarbage();
  if (PEAK_RSS) {
    writeFileSync('/proc/self/clear_refs', '5');
    const before = kilobytesOf('VmRSS');
    const value = await body();
    return { value, peakBytes: Math.max(0, kilobytesOf('VmHWM') - before) * 1024 };
  }
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  // Sampled between tasks only: a call that never yields to the event loop is seen at its end.
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  try {
    const value = await body();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { value, peakBytes: peak - before };
  } finally {
    clearInterval(timer);
  }
}

/** The post-write ingest the stream is measured against: the text written to docs/ first, then ingested. */
export async function postWrite(
  dir: string,
  text: string,
  durability: 'fsync' | 'none' = 'none',
): Promise<unknown> {
  await writeFile(path.join(dir, 'docs', 'answer.md'), text);
  return ingestDocument({
    projectDir: dir,
    docPath: 'docs/answer.md',
    runId: 'bench',
    nodeId: 'answer',
    durability,
  });
}

/**
 * The text cut into `size`-character chunks, and for each chunk how many closing fence lines of candidate blocks
 * (opened as ```<lang> file=...) it completes, of the first max_blocks (the stream has no event for the rest):
 * found before the clock starts, so the timed loop only feeds.
 */
export function chunksOf(text: string, size: number): { chunks: string[]; closings: number[] } {
  const chunks: string[] = [];
  const closings: number[] = [];
  let candidates = 0;
  let open: 'candidate' | 'other' | undefined;
  let lineStart = 0;
  for (let at = 0; at < text.length; at += size) {
    const end = Math.min(text.length, at + size);
    chunks.push(text.slice(at, end));
    let closed = 0;
    // A line is complete once its newline is in a chunk: a closing fence line counts in that chunk.
    for (
      let newline = text.indexOf('\n', at);
      newline !== -1 && newline < end;
      newline = text.indexOf('\n', newline + 1)
    ) {
      const line = text.slice(lineStart, newline);
      lineStart = newline + 1;
      if (!line.startsWith('```')) continue;
      if (open === undefined) open = line.includes(' file=') ? 'candidate' : 'other';
      else {
        if (open === 'candidate' && candidates++ < DEFAULT_INGEST_LIMITS.maxBlocks) closed += 1;
        open = undefined;
      }
    }
    closings.push(closed);
  }
  return { chunks, closings };
}

/** Where a streamed ingest places its blocks past the 32nd (D135): as the library decides, or as told. */
export type Placing = 'default' | 'thread' | 'calling thread';

/**
 * Streams the chunks through the library's `createIngestStream`; the delays from each closing fence line written
 * to its block's event, and when the last block's event came, in ms from the first chunk.
 */
export async function streamed(
  dir: string,
  fed: ReturnType<typeof chunksOf>,
  { placing = 'default', durability = 'none' }: { placing?: Placing; durability?: 'fsync' | 'none' } = {},
): Promise<{ delays: number[]; lastFileMs: number }> {
  const stream = recordedIngestStream(
    {
      projectDir: dir,
      docPath: 'docs/answer.md',
      runId: 'bench',
      nodeId: 'answer',
      durability,
    },
    placing === 'default' ? {} : { placer: placing === 'thread' ? objectWriterThread() : null },
  );
  const writer = stream.writable.getWriter();
  const closedAt: number[] = [];
  const delays: number[] = [];
  const start = performance.now();
  let lastFileMs = Number.NaN;
  const reading = (async () => {
    for await (const event of stream.readable as unknown as AsyncIterable<IngestStreamEvent>) {
      if (
        event.type.startsWith('block.') &&
        event.type !== 'block.opened' &&
        event.type !== 'block.superseded'
      ) {
        const at = closedAt.shift();
        const now = performance.now();
        if (at !== undefined) delays.push(now - at);
        lastFileMs = now - start;
      }
    }
  })();
  const { chunks, closings } = fed;
  for (let index = 0; index < chunks.length; index++) {
    // Noted when the chunk goes in (its block events may arrive before write() returns); only a chunk that closes
    // a block reads the clock, so the timed loop is the feed's.
    const closed = closings[index] ?? 0;
    if (closed > 0) {
      const now = performance.now();
      for (let n = closed; n > 0; n--) closedAt.push(now);
    }
    await writer.write(chunks[index] ?? '');
  }
  await writer.close();
  await reading;
  return { delays, lastFileMs };
}
