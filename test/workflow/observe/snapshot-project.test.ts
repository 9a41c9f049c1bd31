import { execFileSync } from 'node:child_process';
import { link, mkdir, symlink, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashProjectFile, projectSnapshotSchema, snapshotProject } from '../../../src/workflow/index.js';
import type { ProjectFileHasher } from '../../../src/workflow/index.js';
import { sha256Hex } from '../../../src/project/index.js';
import { tempProject } from '../../helpers/temp-project.js';
import { withinMs } from '../../helpers/workspace-fixture.js';

/** The default hasher, counting which paths it read. */
function countingHasher(): { hasher: ProjectFileHasher; reads: string[] } {
  const reads: string[] = [];
  return {
    reads,
    hasher: (source) => {
      reads.push(source.path);
      return hashProjectFile(source);
    },
  };
}

describe('snapshotProject', () => {
  it('records size, mtime and sha256 of every file, keys in order, and is valid stored JSON', async () => {
    const projectDir = await tempProject({ 'b.txt': 'bee\n', 'a/z.ts': 'zed\n', '.env.example': 'X=1\n' });
    const snapshot = await snapshotProject(projectDir);
    expect(Object.keys(snapshot.files)).toEqual(['.env.example', 'a/z.ts', 'b.txt']);
    const info = await stat(path.join(projectDir, 'b.txt'));
    expect(snapshot.files['b.txt']).toEqual({ size: 4, mtime_ms: info.mtimeMs, sha256: sha256Hex('bee\n') });
    expect(projectSnapshotSchema.parse(JSON.parse(JSON.stringify(snapshot)))).toEqual(snapshot);
  });

  it('leaves out .git, .agent, node_modules at any depth and what the root .gitignore ignores', async () => {
    const projectDir = await tempProject({
      '.gitignore': '# build output\ndist/\n*.log\n!keep.log\n/secret.txt\n',
      '.git/HEAD': 'ref: refs/heads/main\n',
      'vendor/lib/.git': 'gitdir: ../../.git/modules/lib\n',
      'vendor/lib/index.js': '\n',
      '.agent/runs/wf-1/state.json': '{}\n',
      'node_modules/x/index.js': '\n',
      'packages/p/node_modules/y/index.js': '\n',
      'dist/app.js': '\n',
      'src/dist/inner.js': '\n',
      'debug.log': '\n',
      'keep.log': '\n',
      'secret.txt': '\n',
      'src/secret.txt': '\n',
      'src/app.ts': '\n',
    });
    const snapshot = await snapshotProject(projectDir);
    expect(Object.keys(snapshot.files)).toEqual([
      '.gitignore',
      'keep.log',
      'src/app.ts',
      'src/secret.txt',
      'vendor/lib/index.js',
    ]);
  });

  it('records a symlink as itself, hashing its text, and never follows it', async () => {
    const projectDir = await tempProject({ 'real/a.txt': 'a\n' });
    const outside = await tempProject({ 'big.txt': 'outside\n' });
    await symlink(outside, path.join(projectDir, 'escape'));
    await symlink('real/a.txt', path.join(projectDir, 'alias.txt'));
    const snapshot = await snapshotProject(projectDir);
    expect(Object.keys(snapshot.files)).toEqual(['alias.txt', 'escape', 'real/a.txt']);
    expect(snapshot.files['alias.txt']).toMatchObject({ symlink: true, sha256: sha256Hex('real/a.txt') });
  });

  it('hashes nothing again when nothing changed since the previous snapshot', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n', 'b/c.txt': 'c\n' });
    const cold = countingHasher();
    const first = await snapshotProject(projectDir, undefined, { hasher: cold.hasher });
    expect(cold.reads).toHaveLength(2);
    const warm = countingHasher();
    const second = await snapshotProject(projectDir, first, { hasher: warm.hasher });
    expect(warm.reads).toEqual([]);
    expect(second.files).toEqual(first.files);
  });

  it('hashes only the files whose size or mtime changed', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    const first = await snapshotProject(projectDir);
    await writeFile(path.join(projectDir, 'a.txt'), 'longer\n');
    await utimes(path.join(projectDir, 'b.txt'), new Date('2020-01-01'), new Date('2020-01-01'));
    const counted = countingHasher();
    const second = await snapshotProject(projectDir, first, { hasher: counted.hasher });
    expect(counted.reads.map((file) => path.basename(file)).sort()).toEqual(['a.txt', 'b.txt']);
    expect(second.files['a.txt']?.sha256).toBe(sha256Hex('longer\n'));
    expect(second.files['b.txt']?.sha256).toBe(first.files['b.txt']?.sha256);
  });

  it('reuses the previous hash when the bytes change but size and mtime are kept (the documented limitation)', async () => {
    const projectDir = await tempProject({ 'a.txt': 'aaaa\n' });
    const file = path.join(projectDir, 'a.txt');
    // Whole seconds, so the restored mtime is exactly the one the first snapshot saw.
    await utimes(file, 1_700_000_000, 1_700_000_000);
    const first = await snapshotProject(projectDir);
    await writeFile(file, 'bbbb\n');
    await utimes(file, 1_700_000_000, 1_700_000_000);
    const second = await snapshotProject(projectDir, first);
    expect(second.files['a.txt']?.sha256).toBe(sha256Hex('aaaa\n'));
    // Without a previous snapshot the same file is hashed afresh.
    expect((await snapshotProject(projectDir)).files['a.txt']?.sha256).toBe(sha256Hex('bbbb\n'));
  });

  it('handles an empty project and a file named __proto__', async () => {
    expect((await snapshotProject(await tempProject())).files).toEqual({});
    const projectDir = await tempProject({ __proto__dir: '' });
    await mkdir(path.join(projectDir, 'x'));
    await writeFile(path.join(projectDir, 'x', '__proto__'), 'p\n');
    const snapshot = await snapshotProject(projectDir);
    expect(Object.keys(snapshot.files)).toEqual(['__proto__dir', 'x/__proto__']);
    expect(Object.hasOwn(JSON.parse(JSON.stringify(snapshot.files)) as object, 'x/__proto__')).toBe(true);
  });
});

describe('snapshotProject on hostile trees', () => {
  it('hashes a file with two names like any other and skips a FIFO', async () => {
    const projectDir = await tempProject({ 'a.txt': 'shared\n' });
    await link(path.join(projectDir, 'a.txt'), path.join(projectDir, 'b.txt'));
    execFileSync('mkfifo', [path.join(projectDir, 'pipe')]);
    const snapshot = await withinMs(snapshotProject(projectDir), 10_000);
    expect(Object.keys(snapshot.files)).toEqual(['a.txt', 'b.txt']);
    expect(snapshot.files['b.txt']?.sha256).toBe(sha256Hex('shared\n'));
  });

  it('does not wait on a FIFO planted as the root .gitignore', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n' });
    execFileSync('mkfifo', [path.join(projectDir, '.gitignore')]);
    const snapshot = await withinMs(snapshotProject(projectDir), 10_000);
    expect(Object.keys(snapshot.files)).toEqual(['a.txt']);
  });

  it('records files whose names hold glob and escape characters', async () => {
    const names = ['[x].txt', 'a\\b.txt', 'star*.txt', 'q?.txt', '{a,b}.txt', 'dir with space/(1).txt'];
    const projectDir = await tempProject(Object.fromEntries(names.map((name) => [name, `${name}\n`])));
    const snapshot = await snapshotProject(projectDir);
    expect(Object.keys(snapshot.files)).toEqual([...names].sort());
    for (const name of names) expect(snapshot.files[name]?.sha256).toBe(sha256Hex(`${name}\n`));
  });
});
