import { hostname } from 'node:os';
import { Readable } from 'node:stream';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { contentHashOf, objectPathOf } from '../../src/store/content-hash.js';
import { createMemoryStore } from '../../src/store/memory-store.js';
import { openProjectStore } from '../../src/store/files-store.js';
import type { ProjectStore } from '../../src/store/project-store.js';
import { ObjectStoreError } from '../../src/store/object-store-error.js';
import { storeLockSlot } from '../../src/store/store-lock-slot.js';
import { acquireShortLock, readLiveShortLockOwner } from '../../src/workspace/locks/short-lock.js';
import { tempProject } from '../helpers/temp-project.js';
import { storeErrorOf } from './store-error-of.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { startS3Server } from '../helpers/s3-server.js';
import { usePostgres } from '../helpers/use-postgres.js';
import {
  catalogSettings,
  freshCatalog,
  remoteStoreOf,
  s3Settings,
  withS3Credentials,
} from '../remote/remote-test-stores.js';

// The storage port's contract (spec storage.md, Part 1): one suite, run against every implementation. Part 2's
// PostgreSQL and S3 implementations join the table below.

// A session (openSession) is a view of its store that keeps folders open: it keeps the whole contract too.
// The remote (Part 2) joins with the run's PostgreSQL: objects in the catalog, and in an S3-compatible server.
const postgres = usePostgres();
const s3 = postgres.kind === 'run' ? await startS3Server() : undefined;
if (s3 !== undefined) {
  withS3Credentials(s3);
  await s3.createBucket('contract');
}
const catalog = postgres.kind === 'run' ? await freshCatalog(postgres.postgres) : undefined;
if (postgres.kind === 'skip') process.stderr.write(`${postgres.note}\n`);
/** Remote stores a test opened (each in a namespace of its own), closed after it: each holds connections. */
const opened: ProjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  await s3?.stop();
  if (postgres.kind === 'run') await postgres.dropDatabases();
});
const remote = (settings: () => RemoteStoreSettings) => (): Promise<ProjectStore> => {
  const store = remoteStoreOf(settings());
  opened.push(store);
  return Promise.resolve(store);
};
const remoteImplementations: readonly (readonly [string, () => Promise<ProjectStore>])[] =
  postgres.kind === 'fail'
    ? [['postgres', () => Promise.reject(new Error(postgres.reason))]]
    : catalog === undefined || s3 === undefined
      ? []
      : [
          ['postgres + catalog objects', remote(() => catalogSettings(catalog))],
          ['postgres + s3 objects', remote(() => s3Settings(catalog, s3, 'contract'))],
        ];

const IMPLEMENTATIONS: readonly (readonly [string, () => Promise<ProjectStore>])[] = [
  ['files', async () => openProjectStore(await tempProject())],
  ['memory', () => Promise.resolve(createMemoryStore())],
  ['files session', async () => openProjectStore(await tempProject()).openSession()],
  ['memory session', () => createMemoryStore().openSession()],
  ...remoteImplementations,
];

/** The text of what `readFrom` read. */
const textOf = (bytes: Uint8Array | undefined): string | undefined =>
  bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');

/** The store error a call rejected with (the call must reject). */
describe.each(IMPLEMENTATIONS)('the %s store', (_kind, open) => {
  it('reads a missing key as undefined, and an empty folder as no entries', async () => {
    const store = await open();
    expect(await store.read('.agent/runs/r1/state.json')).toBeUndefined();
    expect(await store.readText('.agent/runs/r1/state.json')).toBeUndefined();
    expect(await store.info('.agent/runs/r1/state.json')).toBeUndefined();
    expect(await store.list('.agent/runs')).toEqual([]);
    expect(await store.list('.agent')).toEqual([]);
    expect(await store.remove('.agent/runs/r1/state.json')).toBe(false);
  });

  it('returns what was stored, and replaces it whole', async () => {
    const store = await open();
    await store.replace('.agent/runs/r1/state.json', '{"revision":1}\n');
    expect(await store.readText('.agent/runs/r1/state.json')).toBe('{"revision":1}\n');
    await store.replace('.agent/runs/r1/state.json', new Uint8Array([0, 255, 10]));
    expect([...((await store.read('.agent/runs/r1/state.json')) ?? [])]).toEqual([0, 255, 10]);
    expect((await store.info('.agent/runs/r1/state.json'))?.size).toBe(3);
  });

  it('keeps its own copy: changing the bytes given or read changes nothing stored', async () => {
    const store = await open();
    const given = new Uint8Array([1, 2, 3]);
    await store.replace('.agent/runs/r1/x.json', given);
    given[0] = 9;
    const first = await store.read('.agent/runs/r1/x.json');
    if (first === undefined) throw new Error('not stored');
    first[1] = 9;
    expect([...((await store.read('.agent/runs/r1/x.json')) ?? [])]).toEqual([1, 2, 3]);
  });

  it('appends whole lines in order, creating the file', async () => {
    const store = await open();
    await store.append('.agent/runs/r1/events.jsonl', '{"n":1}\n');
    await store.append('.agent/runs/r1/events.jsonl', '{"n":2}\n{"n":3}\n');
    expect(await store.readText('.agent/runs/r1/events.jsonl')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
  });

  it('keeps every line of 200 appends at once whole, each exactly once', async () => {
    const store = await open();
    const lines = Array.from(
      { length: 200 },
      (_, index) => `{"n":${String(index)},"pad":"${'x'.repeat(index * 7)}"}\n`,
    );
    await Promise.all(
      lines.map((line) => store.append('.agent/runs/r1/events.jsonl', line, { durability: 'none' })),
    );
    const stored = (await store.readText('.agent/runs/r1/events.jsonl'))
      ?.split('\n')
      .filter((line) => line !== '');
    expect(stored?.slice().sort()).toEqual(lines.map((line) => line.trimEnd()).sort());
  });

  it('refuses an append that does not end a line', async () => {
    const store = await open();
    await expect(store.append('.agent/runs/r1/events.jsonl', '{"n":1}')).rejects.toThrow(
      /must end with a newline/,
    );
  });

  it("lists a folder's files and folders by name, and removes a file", async () => {
    const store = await open();
    await store.replace('.agent/runs/r2/state.json', '{}');
    await store.replace('.agent/runs/r1/manifests/n1.json', '{}');
    await store.replace('.agent/runs/r1/state.json', '{}');
    await store.replace('.agent/runs.txt', 'x');
    expect(await store.list('.agent/runs')).toEqual([
      { name: 'r1', kind: 'folder' },
      { name: 'r2', kind: 'folder' },
    ]);
    expect(await store.list('.agent/runs/r1')).toEqual([
      { name: 'manifests', kind: 'folder' },
      { name: 'state.json', kind: 'file' },
    ]);
    expect(await store.remove('.agent/runs/r1/state.json')).toBe(true);
    expect(await store.read('.agent/runs/r1/state.json')).toBeUndefined();
    expect(await store.list('.agent/runs/r1')).toEqual([{ name: 'manifests', kind: 'folder' }]);
  });

  it('refuses to read a folder as a file, and to write a file over a folder or below a file', async () => {
    const store = await open();
    await store.replace('.agent/runs/r1/state.json', '{}');
    expect((await storeErrorOf(store.read('.agent/runs/r1'))).code).toBe('not_a_file');
    expect((await storeErrorOf(store.replace('.agent/runs/r1', 'x'))).code).toBe('write_refused');
    expect((await storeErrorOf(store.append('.agent/runs/r1/state.json/x', '{}\n'))).code).toBe(
      'write_refused',
    );
    expect(await store.readText('.agent/runs/r1/state.json')).toBe('{}');
  });

  it("refuses a read past the caller's limit with too_large", async () => {
    const store = await open();
    await store.replace('.agent/runs/r1/big.json', 'x'.repeat(100));
    expect(await store.readText('.agent/runs/r1/big.json', { maxBytes: 100 })).toHaveLength(100);
    const error = await storeErrorOf(store.read('.agent/runs/r1/big.json', { maxBytes: 99 }));
    expect(error.code).toBe('too_large');
    expect(error.message).toMatch(/100 bytes, more than the 99/);
  });

  it.each([
    'workspace/x.ts',
    '.agent/../workspace/x.ts',
    '.agent/runs/./r1',
    '.agent//runs',
    '/etc/passwd',
    '.agent/runs/r1/',
    '.agent/runs/.hidden',
    '.agent/runs/a b',
    '.agent',
  ])('refuses the key %j as malformed_key, touching nothing', async (key) => {
    const store = await open();
    for (const call of [
      store.read(key),
      store.replace(key, 'x'),
      store.append(key, 'x\n'),
      store.remove(key),
    ]) {
      const error = await storeErrorOf(call);
      expect(error.code).toBe('malformed_key');
      expect(error.key).toBe(key);
    }
    expect(await store.list('.agent')).toEqual([]);
  });

  describe('reads from an offset', () => {
    it('reads what was appended since an offset, and tells the same file from one that replaced it', async () => {
      const store = await open();
      const key = '.agent/index/paths/ab/cd.jsonl';
      expect(await store.readFrom(key, 0)).toBeUndefined();
      await store.append(key, '{"n":1}\n');
      const first = await store.readFrom(key, 0);
      expect(textOf(first?.bytes)).toBe('{"n":1}\n');
      expect(first?.size).toBe(8);
      await store.append(key, '{"n":2}\n');
      const tail = await store.readFrom(key, 8);
      expect({ text: textOf(tail?.bytes), size: tail?.size, version: tail?.version }).toEqual({
        text: '{"n":2}\n',
        size: 16,
        version: first?.version,
      });
      expect(textOf((await store.readFrom(key, 6, 4))?.bytes)).toBe('}\n{"');
      expect(textOf((await store.readFrom(key, 16, 0))?.bytes)).toBe('');
      const past = await store.readFrom(key, 100);
      expect({ text: textOf(past?.bytes), size: past?.size }).toEqual({ text: '', size: 16 });
      await store.replace(key, '{"n":3}\n');
      const replaced = await store.readFrom(key, 0);
      expect(textOf(replaced?.bytes)).toBe('{"n":3}\n');
      expect(replaced?.version).not.toBe(first?.version);
    });

    it('refuses an offset or a length that is not a whole number of bytes, and a folder as a file', async () => {
      const store = await open();
      await store.append('.agent/runs/r1/artifacts.jsonl', '{}\n');
      await expect(store.readFrom('.agent/runs/r1/artifacts.jsonl', -1)).rejects.toThrow(/offset -1/);
      await expect(store.readFrom('.agent/runs/r1/artifacts.jsonl', 0, 1.5)).rejects.toThrow(/length 1.5/);
      expect((await storeErrorOf(store.readFrom('.agent/runs/r1', 0))).code).toBe('not_a_file');
      expect((await storeErrorOf(store.readFrom('.agent/runs/../x', 0))).code).toBe('malformed_key');
    });
  });

  describe('folder replaces', () => {
    it("puts the files written in place of the folder's files, removes the others, and touches no other folder", async () => {
      const store = await open();
      await store.replace('.agent/index/paths/aa/gone.jsonl', 'gone\n');
      await store.replace('.agent/index/paths/bb/kept.jsonl', 'old\n');
      await store.replace('.agent/index/runs.jsonl', 'runs\n');
      await store.replace('.agent/index/pathsx/other.jsonl', 'other\n');
      const filled = await store.replaceFolder('.agent/index/paths', async (files) => {
        await files.write('.agent/index/paths/bb/kept.jsonl', 'new\n');
        await files.write('.agent/index/paths/cc/added.jsonl', new Uint8Array([0x61, 0x0a]));
        // Written aside: the folder shows its old files until the fill ends.
        expect(await store.readText('.agent/index/paths/bb/kept.jsonl')).toBe('old\n');
        expect(await store.read('.agent/index/paths/cc/added.jsonl')).toBeUndefined();
        return 'filled';
      });
      expect(filled).toBe('filled');
      expect(await store.read('.agent/index/paths/aa/gone.jsonl')).toBeUndefined();
      expect(await store.readText('.agent/index/paths/bb/kept.jsonl')).toBe('new\n');
      expect(await store.readText('.agent/index/paths/cc/added.jsonl')).toBe('a\n');
      expect(await store.readText('.agent/index/runs.jsonl')).toBe('runs\n');
      expect(await store.readText('.agent/index/pathsx/other.jsonl')).toBe('other\n');
      expect(await store.list('.agent/index')).toEqual([
        { name: 'paths', kind: 'folder' },
        { name: 'pathsx', kind: 'folder' },
        { name: 'runs.jsonl', kind: 'file' },
      ]);
    });

    it('changes nothing when the fill throws, and leaves nothing of it behind', async () => {
      const store = await open();
      await store.replace('.agent/index/history/0.jsonl', 'old\n');
      await expect(
        store.replaceFolder('.agent/index/history', async (files) => {
          await files.write('.agent/index/history/0.jsonl', 'new\n');
          await files.write('.agent/index/history/1.jsonl', 'new\n');
          throw new Error('the rebuild failed');
        }),
      ).rejects.toThrow('the rebuild failed');
      expect(await store.readText('.agent/index/history/0.jsonl')).toBe('old\n');
      expect(await store.list('.agent/index')).toEqual([{ name: 'history', kind: 'folder' }]);
      expect(await store.list('.agent/index/history')).toEqual([{ name: '0.jsonl', kind: 'file' }]);
    });

    it('refuses a key outside the folder as misuse, changing nothing', async () => {
      const store = await open();
      await store.replace('.agent/index/runs.jsonl', 'runs\n');
      await expect(
        store.replaceFolder('.agent/index/paths', (files) => files.write('.agent/index/runs.jsonl', 'x\n')),
      ).rejects.toThrow(/is not below/);
      await expect(
        store.replaceFolder('.agent/index/paths', (files) => files.write('.agent/index/paths/../x', 'x\n')),
      ).rejects.toMatchObject({ code: 'malformed_key' });
      expect(await store.readText('.agent/index/runs.jsonl')).toBe('runs\n');
    });
  });

  describe('folder creations', () => {
    const RUN = '.agent/runs/r1';
    const sha256Hex = (text: string): string => contentHashOf(Buffer.from(text)).slice('sha256:'.length);

    it('puts the folder in place whole once the fill ends, streamed files checked by hash', async () => {
      const store = await open();
      await store.replace('.agent/runs/r0/state.json', 'other\n');
      const created = await store.createFolder(RUN, async (draft) => {
        await draft.write(`${RUN}/state.json`, '{"a":1}\n');
        await draft.makeFolder(`${RUN}/manifests`);
        const streamed = 'line one\nline two\n';
        const chunks = Readable.from([Buffer.from('line one\n'), Buffer.from('line two\n')]);
        expect(await draft.writeStream(`${RUN}/manifests/plan.json`, chunks, sha256Hex(streamed))).toBe(true);
        // Written aside (in the files store, under a name that is no key): nothing shows until the fill ends.
        const listed = await store.list('.agent/runs');
        expect(listed.filter((entry) => !entry.name.startsWith('.'))).toEqual([
          { name: 'r0', kind: 'folder' },
        ]);
        expect(await store.read(`${RUN}/state.json`)).toBeUndefined();
        return 'filled';
      });
      expect(created).toEqual({ status: 'created', filled: 'filled' });
      expect(await store.readText(`${RUN}/state.json`)).toBe('{"a":1}\n');
      expect(await store.readText(`${RUN}/manifests/plan.json`)).toBe('line one\nline two\n');
      expect(await store.list(RUN)).toEqual([
        { name: 'manifests', kind: 'folder' },
        { name: 'state.json', kind: 'file' },
      ]);
      expect(await store.readText('.agent/runs/r0/state.json')).toBe('other\n');
    });

    it('keeps nothing of a streamed file whose bytes do not hash as expected', async () => {
      const store = await open();
      await store.createFolder(RUN, async (draft) => {
        const chunks = Readable.from([Buffer.from('something else\n')]);
        expect(await draft.writeStream(`${RUN}/events.jsonl`, chunks, sha256Hex('what was promised\n'))).toBe(
          false,
        );
        await draft.write(`${RUN}/state.json`, '{}\n');
      });
      expect(await store.list(RUN)).toEqual([{ name: 'state.json', kind: 'file' }]);
    });

    it('answers exists and changes nothing when something is stored at the folder', async () => {
      const store = await open();
      await store.replace(`${RUN}/state.json`, 'theirs\n');
      const created = await store.createFolder(RUN, async (draft) => {
        await draft.write(`${RUN}/state.json`, 'ours\n');
        await draft.write(`${RUN}/events.jsonl`, 'ours\n');
      });
      expect(created).toEqual({ status: 'exists' });
      expect(await store.readText(`${RUN}/state.json`)).toBe('theirs\n');
      expect(await store.list(RUN)).toEqual([{ name: 'state.json', kind: 'file' }]);
      expect(await store.list('.agent/runs')).toEqual([{ name: 'r1', kind: 'folder' }]);
    });

    it('changes nothing when the fill throws, and leaves nothing of it behind', async () => {
      const store = await open();
      await expect(
        store.createFolder(RUN, async (draft) => {
          await draft.write(`${RUN}/state.json`, 'new\n');
          throw new Error('the bundle changed');
        }),
      ).rejects.toThrow('the bundle changed');
      expect(await store.read(`${RUN}/state.json`)).toBeUndefined();
      expect(await store.list('.agent/runs')).toEqual([]);
    });

    it('refuses a key outside the folder as misuse, and a file where a folder goes with write_refused', async () => {
      const store = await open();
      await store.replace('.agent/runs', 'a file\n');
      const error = await storeErrorOf(
        store.createFolder(RUN, (draft) => draft.write(`${RUN}/state.json`, 'x\n')),
      );
      expect(error).toMatchObject({ code: 'write_refused', key: RUN });
      const other = await open();
      await expect(
        other.createFolder(RUN, (draft) => draft.write('.agent/runs/r2/state.json', 'x\n')),
      ).rejects.toThrow(/is not below/);
      await expect(
        other.createFolder(RUN, (draft) => draft.write(`${RUN}/../x`, 'x\n')),
      ).rejects.toMatchObject({ code: 'malformed_key' });
      expect(await other.list('.agent/runs')).toEqual([]);
      expect(await store.readText('.agent/runs')).toBe('a file\n');
    });
  });

  describe('sessions', () => {
    it('reads and writes the same files as its store, and closing it leaves the store open', async () => {
      const store = await open();
      const session = await store.openSession();
      await session.append('.agent/runs/r1/artifacts.jsonl', '{"n":1}\n');
      await store.append('.agent/runs/r1/artifacts.jsonl', '{"n":2}\n');
      await session.append('.agent/index/paths/ab/cd.jsonl', '{"n":1}\n', { durability: 'none' });
      await session.replace('.agent/index/history/meta.json', '{}\n');
      expect(await session.createExclusive('.agent/index/history.lock', 'held\n')).toBe(true);
      expect(await store.createExclusive('.agent/index/history.lock', 'other\n')).toBe(false);
      expect(await session.readText('.agent/runs/r1/artifacts.jsonl')).toBe('{"n":1}\n{"n":2}\n');
      expect(await store.readText('.agent/index/paths/ab/cd.jsonl')).toBe('{"n":1}\n');
      expect(await store.readText('.agent/index/history/meta.json')).toBe('{}\n');
      await session.removeIfHolds('.agent/index/history.lock', 'held\n');
      await session.close();
      expect(await store.read('.agent/index/history.lock')).toBeUndefined();
      expect(await store.readText('.agent/runs/r1/artifacts.jsonl')).toBe('{"n":1}\n{"n":2}\n');
      await store.append('.agent/runs/r1/artifacts.jsonl', '{"n":3}\n');
      expect((await store.info('.agent/runs/r1/artifacts.jsonl'))?.size).toBe(24);
    });
  });

  describe('locks', () => {
    it('creates a lock once, keeps it while another asks, and releases it only for its holder', async () => {
      const store = await open();
      const key = '.agent/runs/r1/lock';
      expect(await store.createExclusive(key, 'holder A\n')).toBe(true);
      expect(await store.createExclusive(key, 'holder B\n')).toBe(false);
      expect(await store.readText(key)).toBe('holder A\n');
      await store.removeIfHolds(key, 'holder B\n');
      expect(await store.readText(key)).toBe('holder A\n');
      await store.removeIfHolds(key, 'holder A\n');
      expect(await store.read(key)).toBeUndefined();
      await store.removeIfHolds(key, 'holder A\n');
      expect(await store.createExclusive(key, 'holder B\n')).toBe(true);
    });

    it('lets exactly one of 20 callers at once create the lock', async () => {
      const store = await open();
      const created = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.createExclusive('.agent/workspace.lock', `holder ${String(index)}\n`, { durability: 'none' }),
        ),
      );
      expect(created.filter(Boolean)).toHaveLength(1);
      const winner = created.indexOf(true);
      expect(await store.readText('.agent/workspace.lock')).toBe(`holder ${String(winner)}\n`);
    });

    it('removes a stale lock only while it still holds what was judged stale', async () => {
      const store = await open();
      const key = '.agent/index/history.lock';
      await store.replace(key, 'stale\n');
      expect(await store.removeStale(key, 'fresh\n')).toBe(false);
      expect(await store.readText(key)).toBe('stale\n');
      expect(await store.removeStale(key, 'stale\n')).toBe(true);
      expect(await store.read(key)).toBeUndefined();
      expect(await store.removeStale(key, 'stale\n')).toBe(false);
    });
  });

  describe('short locks on the store', () => {
    it("holds one holder at a time, tells the waiter who holds it, and takes over a dead holder's lock", async () => {
      const store = await open();
      const slot = storeLockSlot(store, '.agent/runs/r1/submit.lock');
      const first = await acquireShortLock(slot, { waitMs: 0 });
      if (!first.acquired) throw new Error('not acquired');
      expect(await first.lock.isHeld()).toBe(true);
      const second = await acquireShortLock(slot, { waitMs: 20 });
      expect(second).toEqual({ acquired: false, holder: expect.stringMatching(/^pid \d+ on /) as unknown });
      expect(await readLiveShortLockOwner(slot)).toEqual(first.lock.owner);
      await first.lock.release();
      expect(await store.read('.agent/runs/r1/submit.lock')).toBeUndefined();
      // A holder whose process is gone (pid 2^22 + 1 is above Linux's pid_max default) is taken over.
      const dead = {
        pid: 4_194_305,
        hostname: hostname(),
        acquired_at: new Date().toISOString(),
        token: 'dead',
      };
      await store.replace('.agent/runs/r1/submit.lock', `${JSON.stringify(dead)}\n`);
      expect(await readLiveShortLockOwner(slot)).toBeUndefined();
      const third = await acquireShortLock(slot, { waitMs: 0 });
      expect(third.acquired && third.lock.tookOver).toEqual(dead);
    });
  });

  describe('appenders', () => {
    it('appends each write whole and in order, after what append wrote before', async () => {
      const store = await open();
      const key = '.agent/runs/r1/events.jsonl';
      await store.append(key, '{"n":0}\n');
      const appender = await store.openAppender(key);
      for (let index = 1; index <= 50; index++) appender.write(`{"n":${String(index)}}\n`);
      await appender.sync();
      expect((await store.readText(key))?.split('\n')).toHaveLength(52);
      await appender.close();
      expect(() => {
        appender.write('{"late":true}\n');
      }).toThrow(/closed/);
      const lines = (await store.readText(key))?.trimEnd().split('\n');
      expect(lines).toEqual(Array.from({ length: 51 }, (_, index) => `{"n":${String(index)}}`));
    });

    it("keeps two appenders on one file from splitting each other's lines", async () => {
      const store = await open();
      const key = '.agent/runs/r1/events.jsonl';
      const [first, second] = await Promise.all([store.openAppender(key), store.openAppender(key)]);
      for (let index = 0; index < 100; index++) {
        first.write(`{"a":${String(index)}}\n`);
        second.write(`{"b":${String(index)}}\n`);
      }
      await Promise.all([first.close(), second.close()]);
      const lines = (await store.readText(key))?.trimEnd().split('\n') ?? [];
      expect(lines).toHaveLength(200);
      expect(lines.filter((line) => line.startsWith('{"a"'))).toEqual(
        Array.from({ length: 100 }, (_, index) => `{"a":${String(index)}}`),
      );
    });

    it('refuses an appender on a folder', async () => {
      const store = await open();
      await store.replace('.agent/runs/r1/manifests/n.json', '{}');
      expect((await storeErrorOf(store.openAppender('.agent/runs/r1/manifests'))).code).toBe('write_refused');
    });
  });

  describe('readers', () => {
    it('reads a file in parts from any position, never past the size it had when opened', async () => {
      const store = await open();
      const key = '.agent/runs/r1/events.jsonl';
      await store.append(key, '{"n":1}\n{"n":2}\n');
      const reader = await store.openReader(key);
      if (reader === undefined) throw new Error('no reader');
      expect(reader.size).toBe(16);
      await store.append(key, '{"n":3}\n');
      const text = async (position: number, length: number): Promise<string> =>
        Buffer.from(await reader.read(position, length)).toString('utf8');
      expect(await text(8, 8)).toBe('{"n":2}\n');
      expect(await text(0, 4)).toBe('{"n"');
      expect(await text(13, 100)).toBe('2}\n');
      expect(await text(16, 8)).toBe('');
      expect(await text(40, 8)).toBe('');
      await expect(reader.read(-1, 4)).rejects.toThrow(RangeError);
      await reader.close();
      await expect(reader.read(0, 4)).rejects.toThrow(/closed/);
    });

    it('opens no reader on a missing key, and refuses one on a folder', async () => {
      const store = await open();
      expect(await store.openReader('.agent/runs/r1/events.jsonl')).toBeUndefined();
      await store.replace('.agent/runs/r1/manifests/n.json', '{}');
      expect((await storeErrorOf(store.openReader('.agent/runs/r1/manifests'))).code).toBe('not_a_file');
    });

    it('gives each read its own bytes: changing them changes nothing stored', async () => {
      const store = await open();
      const key = '.agent/runs/r1/x.json';
      await store.replace(key, new Uint8Array([1, 2, 3]));
      const reader = await store.openReader(key);
      if (reader === undefined) throw new Error('no reader');
      const first = await reader.read(0, 3);
      first[0] = 9;
      expect([...(await reader.read(0, 3))]).toEqual([1, 2, 3]);
      await reader.close();
      expect([...((await store.read(key)) ?? [])]).toEqual([1, 2, 3]);
    });
  });

  describe('objects', () => {
    it('stores a content once under its hash, and reads it back verified', async () => {
      const store = await open();
      const objects = await store.openObjects({ durability: 'none' });
      const bytes = Buffer.from('export const a = 1;\n');
      const first = await objects.put(bytes);
      expect(first).toEqual({
        hash: contentHashOf(bytes),
        path: `.agent/objects/${objectPathOf(first.hash.slice(7))}`,
        stored: true,
      });
      expect((await objects.put(bytes)).stored).toBe(false);
      expect(Buffer.from(await objects.get(first.hash)).toString()).toBe('export const a = 1;\n');
      expect(await objects.has(first.hash)).toBe(true);
      expect(await objects.verify(first.hash)).toBe('ok');
      const all = await objects.putAll([bytes, Buffer.from('b'), Buffer.from('b')]);
      expect(all.map((result) => result.hash)).toEqual([
        first.hash,
        contentHashOf(Buffer.from('b')),
        contentHashOf(Buffer.from('b')),
      ]);
      await objects.close();
    });

    it('answers a missing object with missing_object and a malformed hash with malformed_hash', async () => {
      const store = await open();
      const objects = await store.openObjects();
      const missing = contentHashOf(Buffer.from('never stored'));
      await expect(objects.get(missing)).rejects.toMatchObject({ code: 'missing_object', hash: missing });
      expect(await objects.has(missing)).toBe(false);
      expect(await objects.verify(missing)).toBe('missing');
      await expect(objects.get('sha256:XYZ')).rejects.toBeInstanceOf(ObjectStoreError);
      await expect(objects.get('sha256:XYZ')).rejects.toMatchObject({ code: 'malformed_hash' });
      await objects.close();
    });

    it('refuses an object whose bytes no longer match its hash on read, and heals it on the next put', async () => {
      const store = await open();
      const objects = await store.openObjects({ durability: 'none' });
      const bytes = Buffer.from('the original\n');
      const { hash, path } = await objects.put(bytes);
      await store.replace(path, 'tampered\n');
      await expect(objects.get(hash)).rejects.toMatchObject({ code: 'corrupt_object', hash });
      expect(await objects.verify(hash)).toBe('corrupt');
      expect((await objects.put(bytes)).stored).toBe(true);
      expect(await objects.verify(hash)).toBe('ok');
      await objects.close();
    });

    it("tells an object's size without reading it, and the hash a corrupt object's bytes have", async () => {
      const store = await open();
      const objects = await store.openObjects({ durability: 'none' });
      const { hash, path } = await objects.put(Buffer.from('twelve bytes'));
      expect(await objects.size(hash)).toBe(12);
      expect(await objects.size(contentHashOf(Buffer.from('never stored')))).toBeUndefined();
      await store.replace(path, 'tampered\n');
      await expect(objects.get(hash)).rejects.toMatchObject({
        code: 'corrupt_object',
        hash,
        actual: contentHashOf(Buffer.from('tampered\n')),
      });
      await objects.close();
    });

    it('opened read only, creates nothing, answers every object of an empty store missing and refuses a put', async () => {
      const store = await open();
      const missing = contentHashOf(Buffer.from('never stored'));
      const empty = await store.openObjects({ readOnly: true });
      await expect(empty.get(missing)).rejects.toMatchObject({ code: 'missing_object', hash: missing });
      await expect(empty.get('sha256:XYZ')).rejects.toMatchObject({ code: 'malformed_hash' });
      expect(await empty.has(missing)).toBe(false);
      expect(await empty.size(missing)).toBeUndefined();
      expect(await empty.verify(missing)).toBe('missing');
      await expect(empty.put(Buffer.from('x'))).rejects.toThrow(/read only/);
      await empty.close();
      expect(await store.list('.agent')).toEqual([]);

      const writer = await store.openObjects({ durability: 'none' });
      const { hash } = await writer.put(Buffer.from('stored'));
      await writer.close();
      const reader = await store.openObjects({ readOnly: true });
      expect(Buffer.from(await reader.get(hash)).toString()).toBe('stored');
      await expect(reader.putStream(hash, Readable.from([Buffer.from('stored')]))).rejects.toThrow(
        /read only/,
      );
      await reader.close();
    });

    it('refuses streamed bytes that do not hash to the name they were sent under, storing nothing', async () => {
      const store = await open();
      const objects = await store.openObjects({ durability: 'none' });
      const claimed = contentHashOf(Buffer.from('what was promised'));
      const chunks = [Buffer.from('something '), Buffer.from('else')];
      await expect(objects.putStream(claimed, Readable.from(chunks))).rejects.toMatchObject({
        code: 'corrupt_object',
      });
      expect(await objects.has(claimed)).toBe(false);
      const right = Buffer.from('what was promised');
      expect((await objects.putStream(claimed, Readable.from([right]))).stored).toBe(true);
      expect(Buffer.from(await objects.get(claimed)).toString()).toBe('what was promised');
      await objects.close();
    });
  });
});
