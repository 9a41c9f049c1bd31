import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  errnoOf,
  fillFreshFolder,
  makeFreshMarkedFolder,
  openUserFile,
  readUserFileHead,
} from '../../src/workspace/index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'user-file-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A FIFO made by mkfifo(1), with no writer: a plain open(2) of it for reading would wait forever. */
function makeFifo(at: string): void {
  const made = spawnSync('mkfifo', [at]);
  if (made.status !== 0) throw new Error(`mkfifo ${at} failed: ${made.stderr.toString()}`);
}

async function listenOnSocket(at: string): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(at, resolve));
  return server;
}

describe('readUserFileHead', () => {
  it('reads a whole short file, and cuts a longer one at maxBytes', async () => {
    const file = path.join(dir, 'payload.json');
    const bytes = Buffer.alloc(200_000, 'x');
    await writeFile(file, bytes);
    const whole = await readUserFileHead(file, 300_000);
    expect(whole.ok && whole.bytes.equals(bytes)).toBe(true);
    const cut = await readUserFileHead(file, 100_001);
    expect(cut.ok && cut.bytes.byteLength).toBe(100_001);
    const empty = path.join(dir, 'empty');
    await writeFile(empty, '');
    const none = await readUserFileHead(empty, 10);
    expect(none.ok && none.bytes.byteLength).toBe(0);
  });

  it('follows a symlink, as for any path the user types', async () => {
    await writeFile(path.join(dir, 'real.txt'), 'through the link');
    await symlink('real.txt', path.join(dir, 'link.txt'));
    const head = await readUserFileHead(path.join(dir, 'link.txt'), 100);
    expect(head.ok && head.bytes.toString()).toBe('through the link');
  });

  it('refuses a folder, a FIFO with no writer and a socket as not regular, without waiting', async () => {
    await mkdir(path.join(dir, 'folder'));
    makeFifo(path.join(dir, 'fifo'));
    const server = await listenOnSocket(path.join(dir, 'socket'));
    try {
      expect(await readUserFileHead(path.join(dir, 'folder'), 10)).toEqual({
        ok: false,
        problem: 'not_regular',
        what: 'a folder',
      });
      for (const name of ['fifo', 'socket']) {
        expect(await readUserFileHead(path.join(dir, name), 10)).toEqual({
          ok: false,
          problem: 'not_regular',
          what: 'a FIFO, socket or device',
        });
      }
    } finally {
      server.close();
    }
  });

  it('gives the open error of a missing file or a dangling symlink as the cause', async () => {
    await symlink('nowhere', path.join(dir, 'dangling'));
    for (const name of ['missing.json', 'dangling', 'missing/deeper.json']) {
      const head = await readUserFileHead(path.join(dir, name), 10);
      expect(head.ok).toBe(false);
      if (!head.ok && head.problem === 'unreadable') expect(errnoOf(head.cause)).toBe('ENOENT');
      else expect.fail(`${name}: ${JSON.stringify(head)}`);
    }
  });
});

describe('openUserFile', () => {
  it('hands back an open regular file the caller reads and closes', async () => {
    await writeFile(path.join(dir, 'a.tar'), 'bundle bytes');
    const opening = await openUserFile(path.join(dir, 'a.tar'));
    if (!opening.ok) return expect.fail(JSON.stringify(opening));
    try {
      expect((await opening.handle.readFile()).toString()).toBe('bundle bytes');
    } finally {
      await opening.handle.close();
    }
  });
});

describe('makeFreshMarkedFolder and fillFreshFolder', () => {
  const marker = { name: '.made-here', text: 'made by the test\n' };

  it('creates a missing folder with only its marker, then fills it', async () => {
    const target = path.join(dir, 'a', 'demo');
    expect(await makeFreshMarkedFolder(target, marker)).toBe(true);
    expect(await readdir(target)).toEqual(['.made-here']);
    expect(await readFile(path.join(target, '.made-here'), 'utf8')).toBe(marker.text);
    const tree = path.join(dir, 'tree');
    await mkdir(path.join(tree, 'deep'), { recursive: true });
    await writeFile(path.join(tree, 'deep', 'one.md'), 'one');
    await fillFreshFolder(target, { trees: { replies: tree }, files: { 'config.yaml': 'a: 1\n' } });
    expect(await readFile(path.join(target, 'replies', 'deep', 'one.md'), 'utf8')).toBe('one');
    expect(await readFile(path.join(target, 'config.yaml'), 'utf8')).toBe('a: 1\n');
  });

  it('empties a folder it made before, and leaves one without the marker untouched', async () => {
    const ours = path.join(dir, 'ours');
    await makeFreshMarkedFolder(ours, marker);
    await writeFile(path.join(ours, 'left-over.txt'), 'from the last demo');
    expect(await makeFreshMarkedFolder(ours, marker)).toBe(true);
    expect(await readdir(ours)).toEqual(['.made-here']);

    const theirs = path.join(dir, 'theirs');
    await mkdir(theirs);
    await writeFile(path.join(theirs, 'precious.txt'), 'keep me');
    expect(await makeFreshMarkedFolder(theirs, marker)).toBe(false);
    expect(await readdir(theirs)).toEqual(['precious.txt']);
    expect(await readFile(path.join(theirs, 'precious.txt'), 'utf8')).toBe('keep me');
  });
});
