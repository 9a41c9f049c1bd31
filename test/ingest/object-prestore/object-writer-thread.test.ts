import { execFile } from 'node:child_process';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_INGEST_LIMITS } from '../../../src/config/index.js';
import { parseFences } from '../../../src/fence/index.js';
import { ObjectWriterThread, planBlocks } from '../../../src/ingest/index.js';
import type { BlockPlan, ObjectWriterThreadOptions, PlaceAnswer } from '../../../src/ingest/index.js';
import { sha256Hex } from '../../../src/project/index.js';
import { contentHashOf, openObjectStore } from '../../../src/store/index.js';
import { fileBlock, tempProject } from '../../helpers/temp-project.js';

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

/** Each block's own cleared plan, as a stream has them as they close (each its own bytes), indexed in order. */
function writePlans(...blocks: [file: string, text: string][]): (BlockPlan & { kind: 'write' })[] {
  return blocks.flatMap(([file, text], index) =>
    planBlocks(parseFences(fileBlock('ts', file, text)).blocks, DEFAULT_INGEST_LIMITS).flatMap((plan) =>
      plan.kind === 'write' ? [{ ...plan, block: { ...plan.block, index, content: '' } }] : [],
    ),
  );
}

/** A placement sent to a loaded thread (one not sent fails the test). */
function placed(answer: Promise<PlaceAnswer> | undefined): Promise<PlaceAnswer> {
  return answer ?? Promise.reject(new Error('the placement was not sent'));
}

async function loadedThread(): Promise<ObjectWriterThread> {
  const thread = newThread();
  thread.start();
  await vi.waitFor(
    () => {
      expect(thread.ready).toBe(true);
    },
    { timeout: GUARD },
  );
  return thread;
}

describe('ObjectWriterThread placing blocks (D135)', () => {
  it(
    'places each block as applyPlans does, in the order sent, what each path held before reported',
    async () => {
      const thread = newThread();
      const dir = await tempProject();
      const [first] = writePlans(['a.ts', 'one']);
      if (first === undefined) throw new Error('no plan');
      const request = {
        session: 1,
        projectDir: dir,
        durability: 'none',
        digestReplaced: true,
        storeObject: false,
      } as const;
      // Not loaded yet: nothing is sent, the caller places the block (and the thread starts).
      expect(thread.place({ ...request, plan: first })).toBeUndefined();
      await vi.waitFor(
        () => {
          expect(thread.ready).toBe(true);
        },
        { timeout: GUARD },
      );
      // Sent one after another without waiting: the thread places them in that order.
      const plans = writePlans(['a.ts', 'one'], ['a.ts', 'two'], ['b/c.ts', 'three'], ['b/c.ts', 'three']);
      const answers = await Promise.all(plans.map((plan) => placed(thread.place({ ...request, plan }))));
      expect(
        answers.map((answer) =>
          answer.blocks.map((block) => [block.workspacePath, block.status, block.code]),
        ),
      ).toEqual([
        [['workspace/a.ts', 'written', null]],
        [['workspace/a.ts', 'written', null]],
        [['workspace/b/c.ts', 'written', null]],
        [['workspace/b/c.ts', 'skipped', 'unchanged']],
      ]);
      expect(answers.map((answer) => answer.replaced)).toEqual([
        [[0, null]],
        [[1, sha256Hex(new TextEncoder().encode('one\n'))]],
        [[2, null]],
        [[3, sha256Hex(new TextEncoder().encode('three\n'))]],
      ]);
      // The content without its bytes (the caller has them), as the records take it.
      expect(answers[0]?.contents).toEqual([
        { workspacePath: 'workspace/a.ts', lang: 'ts', status: 'written', code: null },
      ]);
      expect(await readFile(path.join(dir, 'workspace/a.ts'), 'utf8')).toBe('two\n');
      expect(await readFile(path.join(dir, 'workspace/b/c.ts'), 'utf8')).toBe('three\n');
      await thread.finishBatch(1);
      await thread.endSession(1);
    },
    GUARD,
  );

  it(
    'refuses a path through a symlink out of workspace/, as the writer on the calling thread does, writing nothing outside',
    async () => {
      const thread = await loadedThread();
      const dir = await tempProject();
      const outside = await tempProject();
      await mkdir(path.join(dir, 'workspace'), { recursive: true });
      await symlink(outside, path.join(dir, 'workspace/out'));
      const [plan] = writePlans(['out/x.ts', 'escape']);
      if (plan === undefined) throw new Error('no plan');
      const answer = await thread.place({
        session: 2,
        projectDir: dir,
        durability: 'fsync',
        plan,
        digestReplaced: false,
        storeObject: false,
      });
      expect(answer?.blocks[0]).toMatchObject({ status: 'rejected', workspacePath: '' });
      expect(answer?.contents).toEqual([]);
      await expect(readFile(path.join(outside, 'x.ts'))).rejects.toThrow(/ENOENT/);
      await thread.endSession(2);
    },
    GUARD,
  );

  it(
    'stores the placed files as objects after the placements, from the last once the records start',
    async () => {
      const thread = await loadedThread();
      const dir = await tempProject();
      const plans = writePlans(
        ...Array.from({ length: 12 }, (_, n): [string, string] => [`f${String(n)}.ts`, `file ${String(n)}`]),
      );
      const request = {
        session: 3,
        projectDir: dir,
        durability: 'none',
        digestReplaced: false,
        storeObject: true,
      } as const;
      await Promise.all(plans.map((plan) => placed(thread.place({ ...request, plan }))));
      await thread.recordsStarting(3);
      await vi.waitFor(
        async () => {
          for (const plan of plans)
            expect(await storedCopy(dir, plan.bytes)).toEqual(Buffer.from(plan.bytes));
        },
        { timeout: GUARD },
      );
      await thread.endSession(3);
    },
    GUARD,
  );
});
