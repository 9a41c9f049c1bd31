import { spawnSync } from 'node:child_process';
import { constants, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile as readFileAsync, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quickFs } from '../../src/workspace/index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'quick-fs-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A FIFO made by mkfifo(1); Node has no mkfifo of its own. */
function makeFifo(at: string): void {
  const made = spawnSync('mkfifo', [at]);
  if (made.status !== 0) throw new Error(`mkfifo ${at} failed: ${made.stderr.toString()}`);
}

describe('quickFs', () => {
  it('reads through the pool in chunks from the current offset, 0 at the end', async () => {
    const file = path.join(dir, 'large.bin');
    const bytes = Buffer.alloc(300_000);
    for (let at = 0; at < bytes.length; at++) bytes[at] = at % 251;
    await writeFile(file, bytes);
    const handle = await quickFs.open(file, constants.O_RDONLY);
    try {
      const chunk = Buffer.alloc(128 * 1024);
      const parts: Buffer[] = [];
      for (let read = await handle.readInPool(chunk); read > 0; read = await handle.readInPool(chunk)) {
        parts.push(Buffer.from(chunk.subarray(0, read)));
      }
      expect(Buffer.concat(parts).equals(bytes)).toBe(true);
      expect(await handle.readInPool(chunk)).toBe(0);
    } finally {
      await handle.close();
    }
  });

  it('reads back what it writes, at positions and from the current offset, and syncs through the pool', async () => {
    const file = path.join(dir, 'a.txt');
    const handle = await quickFs.open(file, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o644);
    await handle.writeFile('hello, world\n');
    const { bytesWritten } = await handle.write(Buffer.from('HELLO'), 0, 5, 0);
    expect(bytesWritten).toBe(5);
    await handle.sync();
    await handle.datasync();
    const head = Buffer.alloc(5);
    expect((await handle.read(head, 0, 5, 7)).bytesRead).toBe(5);
    expect(head.toString()).toBe('world');
    expect((await handle.stat()).size).toBe(13);
    expect((await handle.stat({ bigint: true })).size).toBe(13n);
    await handle.chmod(0o444);
    await handle.close();
    await handle.close();
    expect(await readFileAsync(file, 'utf8')).toBe('HELLO, world\n');
    expect((await quickFs.stat(file)).mode & 0o777).toBe(0o444);
  });

  it('reads a whole file larger than one chunk from the current offset', async () => {
    const file = path.join(dir, 'big.bin');
    const bytes = Buffer.alloc(300_000, 7);
    bytes[299_999] = 9;
    await writeFile(file, bytes);
    const handle = await quickFs.open(file, constants.O_RDONLY);
    try {
      await handle.read(Buffer.alloc(10), 0, 10, null);
      const rest = await handle.readFile();
      expect(rest.byteLength).toBe(299_990);
      expect(rest.at(-1)).toBe(9);
    } finally {
      await handle.close();
    }
  });

  it("rejects with Node's own error (code, syscall, path) instead of throwing", async () => {
    const missing = path.join(dir, 'missing', 'file');
    const opening = quickFs.open(missing, constants.O_RDONLY);
    await expect(opening).rejects.toMatchObject({ code: 'ENOENT', syscall: 'open', path: missing });
    await expect(quickFs.lstat(missing)).rejects.toMatchObject({ code: 'ENOENT', syscall: 'lstat' });
    await expect(quickFs.readFile(missing)).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(quickFs.mkdir(missing)).rejects.toMatchObject({ code: 'ENOENT', syscall: 'mkdir' });
    await expect(quickFs.rename(missing, path.join(dir, 'x'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(quickFs.unlink(missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a FIFO in place of a file it reads whole, without blocking the process', async () => {
    const fifo = path.join(dir, 'segments.jsonl');
    makeFifo(fifo);
    // A blocking open of a FIFO with no writer would never return, and on this thread nothing else would run.
    await expect(quickFs.readFile(fifo, 'utf8')).rejects.toMatchObject({ code: 'EINVAL', path: fifo });
    await expect(quickFs.readFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('answers lstat, readlink, realpath and readdir like node:fs', async () => {
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub', 'f'), 'x');
    await symlink('sub/f', path.join(dir, 'link'));
    expect((await quickFs.lstat(path.join(dir, 'link'))).isSymbolicLink()).toBe(true);
    expect((await quickFs.lstat(path.join(dir, 'sub', 'f'), { bigint: true })).size).toBe(1n);
    expect(await quickFs.readlink(path.join(dir, 'link'))).toBe('sub/f');
    expect(await quickFs.realpath(path.join(dir, 'link'))).toBe(
      path.join(await quickFs.realpath(dir), 'sub', 'f'),
    );
    expect((await quickFs.readdir(dir)).sort()).toEqual(['link', 'sub']);
    const entries = await quickFs.readdir(path.join(dir, 'sub'), { withFileTypes: true });
    expect(entries.map((entry) => [entry.name, entry.isFile()])).toEqual([['f', true]]);
    await quickFs.mkdir(path.join(dir, 'deep', 'er', 'est'), { recursive: true });
    await quickFs.mkdir(path.join(dir, 'deep', 'er', 'est'), { recursive: true });
    expect((await quickFs.lstat(path.join(dir, 'deep', 'er', 'est'))).isDirectory()).toBe(true);
    await expect(quickFs.mkdir(path.join(dir, 'deep'), 0o755)).rejects.toMatchObject({ code: 'EEXIST' });
    await quickFs.link(path.join(dir, 'sub', 'f'), path.join(dir, 'hard'));
    await quickFs.chmod(path.join(dir, 'hard'), 0o600);
    expect(readFileSync(path.join(dir, 'hard'), 'utf8')).toBe('x');
  });
});
