import { describe, expect, it } from 'vitest';
import {
  ObjectPrestore,
  ObjectWriterThread,
  PRESTORE_PENDING_BYTES,
  PRESTORE_START_BYTES,
  PRESTORE_START_FILES,
} from '../../../src/ingest/index.js';
import type { ObjectWriter } from '../../../src/ingest/index.js';
import { contentHashOf, openObjectStore } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const GUARD = 30_000;

/** A writer that records what it is sent and answers each batch only when told (ready unless said otherwise). */
class HeldWriter implements ObjectWriter {
  readonly batches: Uint8Array[][] = [];
  private readonly answers: ((stored: boolean) => void)[] = [];
  constructor(public ready = true) {}
  write(_dir: string, _durability: 'fsync' | 'none', objects: readonly Uint8Array[]): Promise<boolean> {
    this.batches.push([...objects]);
    return new Promise((answer) => this.answers.push(answer));
  }
  /** Answers the oldest batch not yet answered. */
  answerNext(stored = true): void {
    this.answers.shift()?.(stored);
  }
}

const file = (n: number, size = 100): Uint8Array => Buffer.from(`${String(n)}:${'x'.repeat(size)}`);
/** Lets the promise callbacks queued so far run. */
const settleCallbacks = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('ObjectPrestore', () => {
  it(`sends nothing before ${String(PRESTORE_START_FILES)} files, and its settle then waits for nothing`, async () => {
    const writer = new HeldWriter();
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    for (let n = 0; n < PRESTORE_START_FILES - 1; n++) prestore.add(file(n));
    await prestore.settle();
    expect(writer.batches).toEqual([]);
  });

  it(`starts at ${String(PRESTORE_START_BYTES)} bytes placed, whatever the count`, () => {
    const writer = new HeldWriter();
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    prestore.add(file(0, PRESTORE_START_BYTES - 200));
    expect(writer.batches).toHaveLength(0);
    prestore.add(file(1, 300));
    expect(writer.batches.map((batch) => batch.length)).toEqual([2]);
  });

  it('sends what it held at the start, then one batch of what is placed while a batch is on its way', async () => {
    const writer = new HeldWriter();
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    const files = Array.from({ length: PRESTORE_START_FILES + 3 }, (_, n) => file(n));
    for (const bytes of files) prestore.add(bytes);
    expect(writer.batches.map((batch) => batch.length)).toEqual([PRESTORE_START_FILES]);
    writer.answerNext();
    await settleCallbacks();
    expect(writer.batches.map((batch) => batch.length)).toEqual([PRESTORE_START_FILES, 3]);
    expect(writer.batches.flat()).toEqual(files);
  });

  it('holds at most PRESTORE_PENDING_BYTES while a batch is on its way (the rest is left to the records), but sends a larger file alone', async () => {
    const writer = new HeldWriter();
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    for (let n = 0; n < PRESTORE_START_FILES; n++) prestore.add(file(n));
    const size = 100 * 1024;
    for (let n = 0; n < 30; n++) prestore.add(file(100 + n, size));
    writer.answerNext();
    await settleCallbacks();
    const second = writer.batches[1] ?? [];
    const held = second.reduce((sum, bytes) => sum + bytes.byteLength, 0);
    expect(held).toBeLessThanOrEqual(PRESTORE_PENDING_BYTES);
    expect(held).toBeGreaterThan(PRESTORE_PENDING_BYTES - size - 100);
    // Nothing is pending now that the second batch is on its way: a file past the limit goes alone next.
    const large = file(999, 2 * PRESTORE_PENDING_BYTES);
    prestore.add(large);
    writer.answerNext();
    await settleCallbacks();
    expect(writer.batches[2]).toEqual([large]);
  });

  it('settle sends what it holds and waits until every batch is answered, stored or not', async () => {
    const writer = new HeldWriter();
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    for (let n = 0; n < PRESTORE_START_FILES + 2; n++) prestore.add(file(n));
    let settled = false;
    const settling = prestore.settle().then(() => {
      settled = true;
    });
    await settleCallbacks();
    expect(settled).toBe(false);
    writer.answerNext(false);
    await settleCallbacks();
    expect(writer.batches.map((batch) => batch.length)).toEqual([PRESTORE_START_FILES, 2]);
    expect(settled).toBe(false);
    writer.answerNext();
    await settling;
    expect(settled).toBe(true);
  });

  it('settle does not wait on a writer that has not loaded (the records write those objects)', async () => {
    const writer = new HeldWriter(false);
    const prestore = new ObjectPrestore('/nowhere', 'none', writer);
    for (let n = 0; n < PRESTORE_START_FILES + 5; n++) prestore.add(file(n));
    // No batch is ever answered: a settle that waited would never end.
    await prestore.settle();
    expect(writer.batches).toHaveLength(1);
  });

  it(
    "with the real thread, every file added is in the project's object store once settle ends",
    async () => {
      const thread = new ObjectWriterThread();
      try {
        const dir = await tempProject();
        // Loaded first, as a stream that ran for a while finds it.
        expect(await thread.write(dir, 'none', [Buffer.from('warm\n')])).toBe(true);
        const prestore = new ObjectPrestore(dir, 'fsync', thread);
        const files = Array.from({ length: 40 }, (_, n) => file(n, 2000));
        for (const bytes of files) prestore.add(bytes);
        await prestore.settle();
        const objects = await openObjectStore(dir, { readOnly: true });
        try {
          for (const bytes of files)
            expect(Buffer.from(await objects.get(contentHashOf(bytes)))).toEqual(Buffer.from(bytes));
        } finally {
          await objects.close();
        }
      } finally {
        await thread.close();
      }
    },
    GUARD,
  );
});
