import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { watchFolder } from '../../src/workspace/watch-folder.js';
import type { FolderWatch } from '../../src/workspace/watch-folder.js';

let dir: string;
let watcher: FolderWatch | undefined;
let seen: string[];
let errors: unknown[];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ai-watch-folder-'));
  seen = [];
  errors = [];
});

afterEach(async () => {
  watcher?.close();
  watcher = undefined;
  await rm(dir, { recursive: true, force: true });
});

function start(): void {
  watcher = watchFolder(
    dir,
    (relative) => seen.push(relative),
    (error) => errors.push(error),
  );
}

/** Waits (up to 5 s) until every name was reported. */
async function reported(...names: string[]): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!names.every((name) => seen.includes(name))) {
    if (Date.now() > deadline)
      throw new Error(`not reported: ${names.filter((name) => !seen.includes(name)).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('watchFolder', () => {
  it('reports a temp file written and renamed into place within one turn of the event loop, and its target', async () => {
    start();
    // Synchronous calls: no event is handled before the temp file is gone (Node's recursive watch drops its name).
    for (let n = 0; n < 5; n++) {
      writeFileSync(path.join(dir, `.a${String(n)}.md.tmp`), '# a\n');
      renameSync(path.join(dir, `.a${String(n)}.md.tmp`), path.join(dir, `a${String(n)}.md`));
    }
    await reported(...[0, 1, 2, 3, 4].flatMap((n) => [`.a${String(n)}.md.tmp`, `a${String(n)}.md`]));
    expect(errors).toEqual([]);
  });

  it('watches folders made after it started, reporting what they hold when they are found', async () => {
    start();
    // The folder and its file in one turn: the file is there before the folder can be watched.
    mkdirSync(path.join(dir, 'run-1', 'deep'), { recursive: true });
    writeFileSync(path.join(dir, 'run-1', 'deep', 'a.md'), '# a\n');
    await reported('run-1', 'run-1/deep/a.md');
    seen = [];
    writeFileSync(path.join(dir, 'run-1', 'deep', '.b.md.tmp'), '# b\n');
    renameSync(path.join(dir, 'run-1', 'deep', '.b.md.tmp'), path.join(dir, 'run-1', 'deep', 'b.md'));
    await reported('run-1/deep/.b.md.tmp', 'run-1/deep/b.md');
    expect(errors).toEqual([]);
  });

  it('watches a folder that was removed and made again, and the folders it held at the start', async () => {
    mkdirSync(path.join(dir, 'old', 'inner'), { recursive: true });
    start();
    writeFileSync(path.join(dir, 'old', 'inner', 'a.md'), '# a\n');
    await reported('old/inner/a.md');
    rmSync(path.join(dir, 'old'), { recursive: true });
    await reported('old');
    seen = [];
    mkdirSync(path.join(dir, 'old'));
    // Given a moment, so the folder is watched before the write (else its listing reports the file).
    await reported('old');
    writeFileSync(path.join(dir, 'old', 'again.md'), '# again\n');
    await reported('old/again.md');
    expect(errors).toEqual([]);
  });

  it('does not look inside a folder whose name starts with a dot', async () => {
    mkdirSync(path.join(dir, '.hidden'));
    start();
    writeFileSync(path.join(dir, '.hidden', 'a.md'), '# a\n');
    writeFileSync(path.join(dir, 'seen.md'), '# seen\n');
    await reported('seen.md');
    expect(seen.filter((name) => name.startsWith('.hidden/'))).toEqual([]);
  });

  it('reports nothing after close', async () => {
    start();
    writeFileSync(path.join(dir, 'before.md'), '# before\n');
    await reported('before.md');
    watcher?.close();
    seen = [];
    writeFileSync(path.join(dir, 'after.md'), '# after\n');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toEqual([]);
  });

  it('is undefined, after onError, for a folder that cannot be watched', () => {
    writeFileSync(path.join(dir, 'file'), 'x');
    watcher = watchFolder(
      path.join(dir, 'missing'),
      () => undefined,
      (error) => errors.push(error),
    );
    expect(watcher).toBeUndefined();
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toMatch(/ENOENT/);
  });
});
