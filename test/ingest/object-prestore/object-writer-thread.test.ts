import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ObjectWriterThread } from '../../../src/ingest/index.js';
import type { ObjectWriterThreadOptions } from '../../../src/ingest/index.js';
import { contentHashOf, openObjectStore } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

// Hang guard only: a thread under tsx loads in about a second on a loaded machine.
const GUARD = 30_000;

const threads: ObjectWriterThread[] = [];
const newThread = (options: ObjectWriterThreadOptions = {}): ObjectWriterThread => {
  const thread = new ObjectWriterThread(options);
  threads.push(thread);
  return thread;
};
afterAll(async () => {
  await Promise.all(threads.map((thread) => thread.close()));
});

/** The bytes of the object `bytes` would be, read back from the project's store (undefined when missing). */
async function storedCopy(projectDir: string, bytes: Uint8Array): Promise<Buffer | undefined> {
  const objects = await openObjectStore(projectDir, { readOnly: true });
  try {
    return (await objects.has(contentHashOf(bytes)))
      ? Buffer.from(await objects.get(contentHashOf(bytes)))
      : undefined;
  } finally {
    await objects.close();
  }
}

describe('ObjectWriterThread', () => {
  it(
    "stores a batch in the project's object store and answers true",
    async () => {
      const thread = newThread();
      const dir = await tempProject();
      const objects = [Buffer.from('alpha\n'), Buffer.from('beta\n'), Buffer.from('alpha\n')];
      expect(thread.ready).toBe(false);
      expect(await thread.write(dir, 'fsync', objects)).toBe(true);
      expect(thread.ready).toBe(true);
      for (const object of objects) expect(await storedCopy(dir, object)).toEqual(object);
      // A view into a larger buffer (as Node's pool gives small buffers) is stored as its own bytes only.
      const pool = Buffer.from('0123456789abcdefghij');
      const view = pool.subarray(5, 12);
      expect(await thread.write(dir, 'none', [view, Buffer.from('')])).toBe(true);
      expect(await storedCopy(dir, view)).toEqual(Buffer.from('56789ab'));
      // A second batch to another project goes to the same thread.
      const other = await tempProject();
      expect(await thread.write(other, 'none', [Buffer.from('gamma\n')])).toBe(true);
      expect(await storedCopy(other, Buffer.from('gamma\n'))).toEqual(Buffer.from('gamma\n'));
    },
    GUARD,
  );

  it(
    'answers false for a batch it cannot store, and lives on for the next',
    async () => {
      const thread = newThread();
      // `.agent` is a file: no object store can be made there, as the records would find.
      const dir = await tempProject({ '.agent': 'not a folder\n' });
      expect(await thread.write(dir, 'none', [Buffer.from('lost\n')])).toBe(false);
      expect(await readFile(path.join(dir, '.agent'), 'utf8')).toBe('not a folder\n');
      const good = await tempProject();
      expect(await thread.write(good, 'none', [Buffer.from('fine\n')])).toBe(true);
      expect(await storedCopy(good, Buffer.from('fine\n'))).toEqual(Buffer.from('fine\n'));
    },
    GUARD,
  );

  it(
    'sends nothing past maxQueuedBytes of batches not yet answered',
    async () => {
      const thread = newThread({ maxQueuedBytes: 8 });
      const dir = await tempProject();
      expect(thread.write(dir, 'none', [Buffer.from('123456789')])).toBeUndefined();
      const first = thread.write(dir, 'none', [Buffer.from('12345678')]);
      expect(first).toBeInstanceOf(Promise);
      // Unanswered, its 8 bytes fill the queue: even one more byte is not sent.
      expect(thread.write(dir, 'none', [Buffer.from('x')])).toBeUndefined();
      expect(await first).toBe(true);
      expect(await thread.write(dir, 'none', [Buffer.from('x')])).toBe(true);
    },
    GUARD,
  );

  it(
    'answers false, then sends nothing more, when its thread cannot load',
    async () => {
      const thread = newThread({ entry: new URL('./fixtures/no-such-worker.ts', import.meta.url) });
      const dir = await tempProject();
      const sent = thread.write(dir, 'none', [Buffer.from('a\n')]);
      expect(await sent).toBe(false);
      expect(thread.write(dir, 'none', [Buffer.from('b\n')])).toBeUndefined();
      expect(thread.ready).toBe(false);
      expect(await storedCopy(dir, Buffer.from('a\n'))).toBeUndefined();
    },
    GUARD,
  );

  it(
    'gives up on a thread that does not load in time: its batches are answered false',
    async () => {
      const thread = newThread({
        entry: new URL('./fixtures/silent-worker.ts', import.meta.url),
        startTimeoutMs: 300,
      });
      const dir = await tempProject();
      expect(await thread.write(dir, 'none', [Buffer.from('a\n')])).toBe(false);
      expect(thread.write(dir, 'none', [Buffer.from('b\n')])).toBeUndefined();
    },
    GUARD,
  );

  it(
    'never holds the process open once idle: a child that stored a batch exits by itself',
    async () => {
      const dir = await tempProject();
      const child = fileURLToPath(new URL('./fixtures/write-and-exit.ts', import.meta.url));
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, dir], {
        timeout: GUARD - 5_000,
      });
      expect(stdout).toBe('stored true\n');
      expect(await storedCopy(dir, Buffer.from('kept after exit\n'))).toEqual(
        Buffer.from('kept after exit\n'),
      );
    },
    GUARD,
  );

  it(
    'never holds the process open while loading: a child that sent a batch to a thread that never loads exits by itself',
    async () => {
      const dir = await tempProject();
      const child = fileURLToPath(new URL('./fixtures/send-and-exit.ts', import.meta.url));
      // Killed well before the thread's 20 s start timeout would let a held process go.
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', child, dir], {
        timeout: 12_000,
      });
      expect(stdout).toBe('sent true\n');
    },
    GUARD,
  );
});
