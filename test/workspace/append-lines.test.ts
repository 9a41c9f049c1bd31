import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import { createWorkspaceFixture, openRootPerTest, SENTINEL_BYTES } from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./fixtures/append-lines-child.ts', import.meta.url));

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('ConfinedRoot.appendLines (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  openRootPerTest(confinement, (opened) => {
    ({ fixture, root } = opened);
  });

  const inRoot = (path: string): string => join(fixture.root, path);

  it('creates the file and its folders, then appends after what is there', async () => {
    expect(await root.appendLines('.agent/runs/r1/a.jsonl', '{"n":1}\n')).toEqual({
      status: 'appended',
      path: '.agent/runs/r1/a.jsonl',
      bytes: 8,
    });
    await root.appendLines('.agent/runs/r1/a.jsonl', '{"n":2}\n{"n":3}\n', { durability: 'none' });
    expect(await readFile(inRoot('.agent/runs/r1/a.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect((await stat(inRoot('.agent/runs/r1/a.jsonl'))).mode & 0o777).toBe(0o644);
  });

  it('starts on a fresh line when the file ends inside a line (an interrupted write)', async () => {
    await writeFile(inRoot('a.jsonl'), '{"n":1}\n{"n":');
    expect(await root.appendLines('a.jsonl', '{"n":2}\n')).toEqual({
      status: 'appended',
      path: 'a.jsonl',
      bytes: 9,
    });
    await root.appendLines('a.jsonl', '{"n":3}\n');
    expect(await readFile(inRoot('a.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":\n{"n":2}\n{"n":3}\n');
  });

  it('adds no newline to an empty file or after a complete last line', async () => {
    await writeFile(inRoot('a.jsonl'), '');
    await root.appendLines('a.jsonl', '{"n":1}\n');
    await root.appendLines('a.jsonl', '{"n":2}\n');
    expect(await readFile(inRoot('a.jsonl'), 'utf8')).toBe('{"n":1}\n{"n":2}\n');
  });

  it('throws for text that does not end with a newline (a reader would take it for a torn line)', async () => {
    await expect(root.appendLines('a.jsonl', '{"n":1}')).rejects.toThrow(/must end with a newline/);
  });

  const refusals: readonly (readonly [
    string,
    string,
    (fixture: WorkspaceFixture) => Promise<void>,
    string,
  ])[] = [
    [
      'a symlink at the file',
      'log.jsonl',
      (f) => symlink(join(f.outside, 'sentinel.txt'), join(f.root, 'log.jsonl')),
      'symlink',
    ],
    ['a symlink on the way', 'logs/sentinel.txt', (f) => symlink(f.outside, join(f.root, 'logs')), 'symlink'],
    ['a folder at the file', 'log.jsonl', (f) => mkdir(join(f.root, 'log.jsonl')), 'is_a_directory'],
    ['a FIFO at the file', 'log.jsonl', (f) => mkfifo(join(f.root, 'log.jsonl')), 'not_a_regular_file'],
    ['a file on the way', 'logs/log.jsonl', (f) => writeFile(join(f.root, 'logs'), 'x'), 'not_a_directory'],
  ];

  it.each(refusals)(
    'refuses %s and leaves everything outside untouched',
    async (_name, path, plant, code) => {
      await plant(fixture);
      const outcome = await root.appendLines(path, 'line\n');
      expect(outcome).toMatchObject({ status: 'refused', code });
      expect(await readFile(join(fixture.outside, 'sentinel.txt'), 'utf8')).toBe(SENTINEL_BYTES);
    },
  );

  it('refuses a path that breaks the path rules before touching the disk', async () => {
    expect(await root.appendLines('../escape.jsonl', 'line\n')).toMatchObject({
      status: 'refused',
      code: 'traversal',
    });
    expect(await readdir(fixture.root)).toEqual([]);
  });
});

// mkfifo is not in node:fs; make one with the coreutils tool.
async function mkfifo(path: string): Promise<void> {
  await run('mkfifo', [path]);
}

describe('ConfinedRoot.appendLines across processes', () => {
  let fixture: WorkspaceFixture;

  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });

  afterEach(async () => {
    await fixture.cleanup();
  });

  it('never interleaves the lines of two processes appending to one file at once', async () => {
    const count = 200;
    await Promise.all(
      ['a', 'b'].map((tag) =>
        run(process.execPath, ['--import', 'tsx', CHILD, fixture.root, tag, String(count)]),
      ),
    );
    const lines = (await readFile(join(fixture.root, 'log/records.jsonl'), 'utf8')).split('\n');
    expect(lines.pop()).toBe('');
    expect(lines).toHaveLength(2 * count);
    const seen = { a: [] as number[], b: [] as number[] };
    for (const line of lines) {
      const { tag, index, pad } = JSON.parse(line) as { tag: 'a' | 'b'; index: number; pad: string };
      expect(pad).toBe(tag.repeat(2048));
      seen[tag].push(index);
    }
    // Each process's lines land whole and in its own order.
    const inOrder = Array.from({ length: count }, (_, index) => index);
    expect(seen).toEqual({ a: inOrder, b: inOrder });
  }, 60_000);

  it('ends a partial last line once and breaks no record when two processes append after it', async () => {
    const count = 50;
    await mkdir(join(fixture.root, 'log'));
    await writeFile(join(fixture.root, 'log/records.jsonl'), '{"tag":"cut","pad":"ccc');
    await Promise.all(
      ['a', 'b'].map((tag) =>
        run(process.execPath, ['--import', 'tsx', CHILD, fixture.root, tag, String(count)]),
      ),
    );
    const lines = (await readFile(join(fixture.root, 'log/records.jsonl'), 'utf8')).split('\n');
    expect(lines.shift()).toBe('{"tag":"cut","pad":"ccc');
    expect(lines.pop()).toBe('');
    // Both may have seen the partial line before either wrote: then one empty line sits between two records.
    const empty = lines.filter((line) => line === '').length;
    expect(empty).toBeLessThanOrEqual(1);
    const records = lines.filter((line) => line !== '').map((line) => JSON.parse(line) as { tag: string });
    expect(records).toHaveLength(2 * count);
  }, 60_000);
});
