import { spawnSync } from 'node:child_process';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { contentHashOf } from '../../src/store/content-hash.js';
import { openObjectStore } from '../../src/store/object-store.js';
import type { ObjectStore } from '../../src/store/object-store.js';
import { ObjectStoreError } from '../../src/store/object-store-error.js';
import { tempProject } from '../helpers/temp-project.js';
import { tempFileName } from '../../src/workspace/temp-file-name.js';
import { mountSmallTmpfs } from '../helpers/read-only-mount.js';
import { findTempFiles } from '../helpers/workspace-fixture.js';

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

const opened: ObjectStore[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
});

async function storeIn(projectDir: string): Promise<ObjectStore> {
  const store = await openObjectStore(projectDir);
  opened.push(store);
  return store;
}

/** Every object file below the store, as paths relative to .agent/objects. */
async function objectFiles(projectDir: string): Promise<string[]> {
  const entries = await readdir(join(projectDir, '.agent', 'objects'), {
    recursive: true,
    withFileTypes: true,
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

describe('openObjectStore', () => {
  it('stores content at sha256/<2 hex>/<62 hex> and reads it back', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const bytes = bytesOf('hello\n');
    const put = await store.put(bytes);
    const hex = put.hash.slice('sha256:'.length);
    expect(put).toEqual({
      hash: contentHashOf(bytes),
      path: `.agent/objects/sha256/${hex.slice(0, 2)}/${hex.slice(2)}`,
      stored: true,
    });
    expect(await readFile(join(project, put.path), 'utf8')).toBe('hello\n');
    expect(new TextDecoder().decode(await store.get(put.hash))).toBe('hello\n');
    expect(await store.has(put.hash)).toBe(true);
    expect(await store.verify(put.hash)).toBe('ok');
  });

  it('stores identical content once and reports the second put as not stored', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const first = await store.put(bytesOf('same'));
    const second = await store.put(bytesOf('same'));
    expect(first.stored).toBe(true);
    expect(second).toEqual({ ...first, stored: false });
    expect(await objectFiles(project)).toHaveLength(1);
  });

  it('shares objects between stores opened on the same project', async () => {
    const project = await tempProject();
    await (await storeIn(project)).put(bytesOf('shared'));
    expect((await (await storeIn(project)).put(bytesOf('shared'))).stored).toBe(false);
  });

  it('stores distinct contents as distinct files', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    await Promise.all(['a', 'b', 'c', 'a'].map((text) => store.put(bytesOf(text))));
    expect(await objectFiles(project)).toHaveLength(3);
  });

  it('stores the empty content', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const put = await store.put(new Uint8Array());
    expect((await store.get(put.hash)).byteLength).toBe(0);
  });

  it('leaves no temp files behind and makes objects read-only', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const puts = await Promise.all(['x', 'y', 'x'].map((text) => store.put(bytesOf(text))));
    expect(await findTempFiles(join(project, '.agent', 'objects'))).toEqual([]);
    for (const put of puts) {
      expect((await stat(join(project, put.path))).mode & 0o777).toBe(0o444);
    }
  });

  it('throws corrupt_object from get and says corrupt from verify when the bytes on disk changed', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const put = await store.put(bytesOf('original'));
    const file = join(project, put.path);
    await chmod(file, 0o644);
    await writeFile(file, 'tampered');
    await chmod(file, 0o444);
    await expect(store.get(put.hash)).rejects.toMatchObject({
      name: 'ObjectStoreError',
      code: 'corrupt_object',
    });
    expect(await store.verify(put.hash)).toBe('corrupt');
  });

  it('heals a corrupt object when the original content is put again', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const put = await store.put(bytesOf('original'));
    await chmod(join(project, put.path), 0o644);
    await writeFile(join(project, put.path), 'tampered');
    expect((await store.put(bytesOf('original'))).stored).toBe(true);
    expect(await store.verify(put.hash)).toBe('ok');
  });

  it('putAll stores each distinct content once, in order, read-only and with no temp file left', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const puts = await store.putAll([bytesOf('a'), bytesOf('b'), bytesOf('a')]);
    expect(puts.map((put) => put.hash)).toEqual(
      [bytesOf('a'), bytesOf('b'), bytesOf('a')].map(contentHashOf),
    );
    expect(puts.map((put) => put.stored)).toEqual([true, true, true]);
    expect(await objectFiles(project)).toHaveLength(2);
    for (const put of puts) expect((await stat(join(project, put.path))).mode & 0o777).toBe(0o444);
    expect(await findTempFiles(join(project, '.agent', 'objects'))).toEqual([]);
    expect((await store.putAll([bytesOf('b')]))[0]?.stored).toBe(false);
  });

  it('putAll on a disk that fills up waits for every write of the batch: it fails, leaving whole objects and no temp file', async ({
    skip,
  }) => {
    const project = await tempProject();
    const agent = join(project, '.agent');
    await mkdir(agent);
    const mount = mountSmallTmpfs(agent, '256k');
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      const store = await openObjectStore(project);
      try {
        // 40 KB to 320 KB, four written at once: the first fit, a later one fails with ENOSPC mid-batch.
        const contents = Array.from({ length: 8 }, (_, index) =>
          new Uint8Array(40_000 * (index + 1)).fill(index + 1),
        );
        await expect(store.putAll(contents)).rejects.toMatchObject({ code: 'ENOSPC' });
        expect(await findTempFiles(join(agent, 'objects'))).toEqual([]);
        const stored = (await objectFiles(project)).length;
        expect(stored).toBeGreaterThan(0);
        const verdicts = await Promise.all(
          contents.map(async (bytes) => {
            const hash = contentHashOf(bytes);
            return (await store.has(hash)) ? await store.verify(hash) : 'absent';
          }),
        );
        expect(verdicts.filter((verdict) => verdict === 'ok')).toHaveLength(stored);
      } finally {
        await store.close();
      }
    } finally {
      mount.release();
    }
  });

  it('its first write sweeps a killed writer’s temp file from any folder of the store; a store only read never sweeps', async () => {
    const project = await tempProject();
    const folder = join(project, '.agent/objects/sha256/ab');
    await mkdir(folder, { recursive: true });
    const killed = deadWritersTempName();
    await writeFile(join(folder, killed), 'half an object', { mode: 0o444 });

    const reader = await storeIn(project);
    expect(await reader.verify(contentHashOf(bytesOf('absent')))).toBe('missing');
    expect(await readdir(folder)).toEqual([killed]);

    // Any content whose folder is not ab/: the writer's own sweep only looks where it writes.
    let content = 'x';
    while (contentHashOf(bytesOf(content)).startsWith('sha256:ab')) content += 'x';
    await reader.put(bytesOf(content));
    expect(await readdir(folder)).toEqual([]);
  });

  it('putAll trusts an existing object of the right size without reading it, and rewrites one of another size', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const [same, other] = await store.putAll([bytesOf('original'), bytesOf('second')]);
    for (const put of [same, other]) await chmod(join(project, put?.path ?? ''), 0o644);
    await writeFile(join(project, same?.path ?? ''), 'tampered');
    await writeFile(join(project, other?.path ?? ''), 'cut');
    const again = await store.putAll([bytesOf('original'), bytesOf('second')]);
    expect(again.map((put) => put.stored)).toEqual([false, true]);
    expect(await store.verify(same?.hash ?? '')).toBe('corrupt');
    expect(await store.verify(other?.hash ?? '')).toBe('ok');
  });

  it('reports a missing object as missing', async () => {
    const project = await tempProject();
    const store = await storeIn(project);
    const hash = contentHashOf(bytesOf('never stored'));
    expect(await store.has(hash)).toBe(false);
    expect(await store.verify(hash)).toBe('missing');
    await expect(store.get(hash)).rejects.toMatchObject({ code: 'missing_object' });
  });

  const malformed = [
    '',
    'a'.repeat(64),
    `sha256:${'a'.repeat(63)}`,
    `sha256:${'A'.repeat(64)}`,
    `sha256:${'a'.repeat(62)}/.`,
    `sha256:../../../../etc/passwd${'a'.repeat(40)}`,
    `sha1:${'a'.repeat(64)}`,
  ];

  it.each(malformed)('refuses the malformed hash %j before building any path', async (hash) => {
    const project = await tempProject();
    const store = await storeIn(project);
    for (const call of [store.get(hash), store.has(hash), store.verify(hash)]) {
      const error: unknown = await call.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ObjectStoreError);
      expect(error).toMatchObject({ code: 'malformed_hash', hash });
    }
  });
});

/** A temp file name of this host whose writer (a process that ran and exited) is gone. */
function deadWritersTempName(): string {
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return tempFileName().replace(
    `-${process.pid.toString(16).padStart(8, '0')}-`,
    `-${Number(dead.stdout).toString(16).padStart(8, '0')}-`,
  );
}
