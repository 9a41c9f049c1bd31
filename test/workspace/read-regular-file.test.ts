import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readRegularFile } from '../../src/workspace/index.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'read-regular-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readRegularFile', () => {
  it('reads a file as bytes or UTF-8 text, through a symlink as readFile does', async () => {
    await writeFile(path.join(dir, 'a.json'), '{"a":1}\n');
    await symlink('a.json', path.join(dir, 'link.json'));
    expect((await readRegularFile(path.join(dir, 'a.json'))).toString()).toBe('{"a":1}\n');
    expect(await readRegularFile(path.join(dir, 'link.json'), 'utf8')).toBe('{"a":1}\n');
  });

  it('rejects a missing file with ENOENT, a folder with EISDIR', async () => {
    await expect(readRegularFile(path.join(dir, 'missing'))).rejects.toMatchObject({ code: 'ENOENT' });
    await mkdir(path.join(dir, 'sub'));
    await expect(readRegularFile(path.join(dir, 'sub'), 'utf8')).rejects.toMatchObject({
      code: 'EISDIR',
      message: expect.stringContaining('a folder is in its place') as unknown,
    });
  });

  it('rejects a FIFO at once, where readFile would wait for a writer forever', async () => {
    const fifo = path.join(dir, 'state.json');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(readRegularFile(fifo, 'utf8')).rejects.toMatchObject({
      code: 'EINVAL',
      path: fifo,
      message: expect.stringContaining('a FIFO, socket or device is in its place') as unknown,
    });
  });

  it('stops on an aborted signal', async () => {
    await writeFile(path.join(dir, 'a.txt'), 'x');
    const controller = new AbortController();
    controller.abort();
    await expect(
      readRegularFile(path.join(dir, 'a.txt'), undefined, { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError', code: 'ABORT_ERR' });
  });
});
