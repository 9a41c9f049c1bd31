import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { execFileSync } from 'node:child_process';
import { chmod, link, lstat, mkdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openConfinedRoot } from '../../src/workspace/confined-root.js';
import type { ConfinedRoot, Confinement } from '../../src/workspace/confined-root-types.js';
import { WorkspaceError } from '../../src/workspace/workspace-error.js';
import {
  createWorkspaceFixture,
  findTempFiles,
  SENTINEL_BYTES,
  withinMs,
  openRootPerTest,
} from '../helpers/workspace-fixture.js';
import type { WorkspaceFixture } from '../helpers/workspace-fixture.js';
import { mountReadOnly } from '../helpers/read-only-mount.js';

const encoder = new TextEncoder();
const bytesOf = (text: string): Uint8Array => encoder.encode(text);

describe.each<Confinement>(['proc-fd', 'lstat-walk'])('ConfinedRoot (%s)', (confinement) => {
  let fixture: WorkspaceFixture;
  let root: ConfinedRoot;
  openRootPerTest(confinement, (opened) => {
    ({ fixture, root } = opened);
  });

  const inRoot = (path: string): string => join(fixture.root, path);

  it('writes a new file, creating its directories, with mode 0644', async () => {
    const outcome = await root.write('./src//lib/a.ts', bytesOf('export {};\n'));
    expect(outcome).toEqual({ status: 'written', path: 'src/lib/a.ts' });
    expect(await readFile(inRoot('src/lib/a.ts'), 'utf8')).toBe('export {};\n');
    expect((await stat(inRoot('src/lib/a.ts'))).mode & 0o777).toBe(0o644);
  });

  it('writes an empty file and a 1 MiB file exactly', async () => {
    const large = new Uint8Array(1 << 20).map((_, index) => index % 251);
    expect(await root.write('empty/__init__.py', new Uint8Array())).toMatchObject({ status: 'written' });
    expect(await root.write('large.bin', large)).toMatchObject({ status: 'written' });
    expect((await readFile(inRoot('empty/__init__.py'))).length).toBe(0);
    expect((await readFile(inRoot('large.bin'))).equals(large)).toBe(true);
  });

  it('writes a 255-byte name, which leaves the fixed-length temp name room', async () => {
    const name = 'é'.repeat(127) + 'a';
    expect(await root.write(`long/${name}`, bytesOf('x'))).toEqual({
      status: 'written',
      path: `long/${name}`,
    });
    expect(await readFile(inRoot(`long/${name}`), 'utf8')).toBe('x');
  });

  it('refuses a path that breaks a path rule before touching the disk', async () => {
    expect(await root.write('../outside/sentinel.txt', bytesOf('x'))).toMatchObject({
      status: 'refused',
      code: 'traversal',
    });
    expect(await root.write('/etc/passwd', bytesOf('x'))).toMatchObject({ code: 'absolute_path' });
  });

  it.each([
    ['an absolute target', (fx: WorkspaceFixture) => fx.outside],
    ['a relative ../outside target', () => '../outside'],
  ])('refuses a directory symlinked to outside with %s', async (_, target) => {
    await symlink(target(fixture), inRoot('escape'));
    expect(await root.write('escape/sentinel.txt', bytesOf('pwned'))).toMatchObject({
      status: 'refused',
      code: 'symlink',
    });
    expect(await root.write('escape/new/file.txt', bytesOf('pwned'))).toMatchObject({ code: 'symlink' });
  });

  it('refuses a nested directory symlink, even one that points inside the workspace', async () => {
    await mkdir(inRoot('real/deeper'), { recursive: true });
    await symlink('real', inRoot('alias'));
    await symlink('../../outside', inRoot('real/out'));
    expect(await root.write('alias/x.txt', bytesOf('x'))).toMatchObject({ code: 'symlink' });
    expect(await root.write('real/out/f.txt', bytesOf('x'))).toMatchObject({ code: 'symlink' });
  });

  it('refuses a symlink at the target, inside or outside', async () => {
    await symlink(join(fixture.outside, 'sentinel.txt'), inRoot('t.txt'));
    await writeFile(inRoot('inner.txt'), 'inner\n');
    await symlink('inner.txt', inRoot('inner-link.txt'));
    expect(await root.write('t.txt', bytesOf('pwned'))).toMatchObject({ status: 'refused', code: 'symlink' });
    expect(await root.write('inner-link.txt', bytesOf('x'))).toMatchObject({ code: 'symlink' });
    expect(await readFile(inRoot('inner.txt'), 'utf8')).toBe('inner\n');
  });

  it('refuses a dangling symlink at the target without creating what it points to', async () => {
    await symlink(join(fixture.outside, 'created-through-link.txt'), inRoot('dangling.txt'));
    expect(await root.write('dangling.txt', bytesOf('pwned'))).toMatchObject({ code: 'symlink' });
  });

  it('replaces a hard-linked target instead of writing through it', async () => {
    const outsideFile = join(fixture.outside, 'sentinel.txt');
    await link(outsideFile, inRoot('h.txt'));
    expect((await stat(outsideFile)).nlink).toBe(2);
    expect(await root.write('h.txt', bytesOf('new bytes\n'))).toEqual({ status: 'written', path: 'h.txt' });
    expect(await readFile(inRoot('h.txt'), 'utf8')).toBe('new bytes\n');
    expect(await readFile(outsideFile, 'utf8')).toBe(SENTINEL_BYTES);
    expect((await stat(outsideFile)).nlink).toBe(1);
  });

  it('refuses a FIFO at the target promptly, without opening it', async () => {
    execFileSync('mkfifo', [inRoot('pipe')]);
    const outcome = await withinMs(root.write('pipe', bytesOf('x')), 2_000);
    expect(outcome).toMatchObject({ status: 'refused', code: 'not_a_regular_file' });
    expect(await withinMs(root.write('pipe', bytesOf('x'), { dryRun: true }), 2_000)).toMatchObject({
      code: 'not_a_regular_file',
    });
    expect((await lstat(inRoot('pipe'))).isFIFO()).toBe(true);
  }, 5_000);

  it('refuses a FIFO used as a directory component promptly', async () => {
    execFileSync('mkfifo', [inRoot('pipe')]);
    const outcome = await withinMs(root.write('pipe/x.txt', bytesOf('x')), 2_000);
    expect(outcome).toMatchObject({ code: 'not_a_directory' });
  }, 5_000);

  it('refuses a socket at the target', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(inRoot('sock'), resolve));
    try {
      expect(await root.write('sock', bytesOf('x'))).toMatchObject({ code: 'not_a_regular_file' });
    } finally {
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
    }
  });

  it('refuses a target that is a directory', async () => {
    await mkdir(inRoot('d/e'), { recursive: true });
    expect(await root.write('d/e', bytesOf('x'))).toMatchObject({
      status: 'refused',
      code: 'is_a_directory',
    });
  });

  it('refuses a path whose parent component is a file', async () => {
    await writeFile(inRoot('file.txt'), 'file\n');
    expect(await root.write('file.txt/x', bytesOf('x'))).toMatchObject({ code: 'not_a_directory' });
    expect(await root.write('file.txt/y/z', bytesOf('x'))).toMatchObject({ code: 'not_a_directory' });
    expect(await readFile(inRoot('file.txt'), 'utf8')).toBe('file\n');
  });

  it('returns unchanged and does not write when the target already holds the bytes', async () => {
    await root.write('same.txt', bytesOf('same\n'));
    const before = await stat(inRoot('same.txt'), { bigint: true });
    expect(await root.write('same.txt', bytesOf('same\n'))).toEqual({
      status: 'unchanged',
      path: 'same.txt',
    });
    const after = await stat(inRoot('same.txt'), { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
  });

  it('reports, with digestReplaced, the sha256 of the file a write replaced (null when none)', async () => {
    const sha = (text: string): string => createHash('sha256').update(text).digest('hex');
    const digest = { digestReplaced: true } as const;
    expect(await root.write('d/new.ts', bytesOf('one'), digest)).toEqual({
      status: 'written',
      path: 'd/new.ts',
      replacedSha256: null,
    });
    // Same size, other bytes (read to compare), then another size (read only for the digest).
    expect(await root.write('d/new.ts', bytesOf('two'), digest)).toMatchObject({
      replacedSha256: sha('one'),
    });
    const batch = root.writeBatch();
    expect(await batch.write('d/new.ts', bytesOf('a longer third'), digest)).toMatchObject({
      replacedSha256: sha('two'),
    });
    await batch.finish();
    // Unchanged carries no digest (the file held these very bytes); without the option, no field either.
    expect(await root.write('d/new.ts', bytesOf('a longer third'), digest)).toEqual({
      status: 'unchanged',
      path: 'd/new.ts',
    });
    expect(await root.write('d/new.ts', bytesOf('four'))).toEqual({ status: 'written', path: 'd/new.ts' });
    await symlink(inRoot('d/new.ts'), inRoot('d/link.ts'));
    expect(await root.write('d/link.ts', bytesOf('x'), digest)).toMatchObject({
      status: 'refused',
      code: 'symlink',
    });
    expect(await readFile(inRoot('d/new.ts'), 'utf8')).toBe('four');
  });

  it('writes nothing on a dry run and reports what would happen', async () => {
    await writeFile(inRoot('existing.txt'), 'old\n');
    expect(await root.write('new/dir/f.txt', bytesOf('x'), { dryRun: true })).toEqual({
      status: 'would_write',
      path: 'new/dir/f.txt',
    });
    expect(await root.write('existing.txt', bytesOf('new\n'), { dryRun: true })).toMatchObject({
      status: 'would_write',
    });
    expect(await root.write('existing.txt', bytesOf('old\n'), { dryRun: true })).toMatchObject({
      status: 'unchanged',
    });
    await symlink(fixture.outside, inRoot('escape'));
    expect(await root.write('escape/f.txt', bytesOf('x'), { dryRun: true })).toMatchObject({
      code: 'symlink',
    });
    await expect(lstat(inRoot('new'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(inRoot('existing.txt'), 'utf8')).toBe('old\n');
  });

  it.each([0, 0o077])('creates files 0644 whatever the umask (%o)', async (umask) => {
    const previous = process.umask(umask);
    try {
      await root.write('masked/file.sh', bytesOf('#!/bin/sh\n'));
    } finally {
      process.umask(previous);
    }
    expect((await stat(inRoot('masked/file.sh'))).mode & 0o777).toBe(0o644);
  });

  it('creates a file 0444 with readOnly, by write, write batch and stream, and can replace it later', async () => {
    await root.write('objects/a', bytesOf('a\n'), { readOnly: true });
    const batch = root.writeBatch();
    await batch.write('objects/b', bytesOf('b\n'), { readOnly: true });
    await batch.finish();
    await root.writeStream('objects/c', Readable.from([bytesOf('c\n')]), { readOnly: true });
    for (const name of ['a', 'b', 'c']) {
      expect((await stat(inRoot(`objects/${name}`))).mode & 0o777).toBe(0o444);
      expect(await readFile(inRoot(`objects/${name}`), 'utf8')).toBe(`${name}\n`);
    }
    expect(await root.write('objects/a', bytesOf('A\n'))).toMatchObject({ status: 'written' });
    expect((await stat(inRoot('objects/a'))).mode & 0o777).toBe(0o644);
  });

  it('replaces an executable target with a 0644 file', async () => {
    await writeFile(inRoot('run.sh'), 'old\n');
    await chmod(inRoot('run.sh'), 0o755);
    await root.write('run.sh', bytesOf('new\n'));
    expect((await stat(inRoot('run.sh'))).mode & 0o777).toBe(0o644);
  });

  it('lets concurrent writes to one path each land whole', async () => {
    const contents = Array.from({ length: 10 }, (_, index) => `version ${index}\n`.repeat(1000));
    const outcomes = await Promise.all(contents.map((content) => root.write('race.txt', bytesOf(content))));
    expect(outcomes.every((outcome) => outcome.status === 'written')).toBe(true);
    expect(contents).toContain(await readFile(inRoot('race.txt'), 'utf8'));
  });

  it('skips fsync on request and still writes', async () => {
    expect(await root.write('fast.txt', bytesOf('x'), { durability: 'none' })).toMatchObject({
      status: 'written',
    });
  });

  it('reports each stage to onStep in order', async () => {
    const stages: string[] = [];
    await root.write('a/b.txt', bytesOf('x'), {
      onStep: (step) => {
        stages.push(step.stage);
      },
    });
    expect(stages).toEqual([
      'directory-created',
      'directory-opened',
      'target-checked',
      'temp-written',
      'before-rename',
      'renamed',
    ]);
  });

  it('removes the temp file when onStep throws midway', async () => {
    const failing = root.write('boom.txt', bytesOf('x'), {
      onStep: (step) => {
        if (step.stage === 'temp-written') throw new Error('stop here');
      },
    });
    await expect(failing).rejects.toThrow('stop here');
    expect(await findTempFiles(fixture.root)).toEqual([]);
    await expect(lstat(inRoot('boom.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('openConfinedRoot', () => {
  let fixture: WorkspaceFixture;

  beforeEach(async () => {
    fixture = await createWorkspaceFixture();
  });

  afterEach(async () => {
    try {
      await fixture.assertConfined();
    } finally {
      await fixture.cleanup();
    }
  });

  it('uses /proc/self/fd on Linux', async () => {
    const root = await openConfinedRoot(fixture.root);
    expect(root.confinement).toBe(process.platform === 'linux' ? 'proc-fd' : 'lstat-walk');
    await root.close();
  });

  it('trusts a symlinked root once and writes into its real directory', async () => {
    await mkdir(join(fixture.base, 'real-root'));
    await symlink('real-root', join(fixture.base, 'root-link'));
    const root = await openConfinedRoot(join(fixture.base, 'root-link'));
    try {
      expect(root.realPath).toBe(join(fixture.base, 'real-root'));
      expect(await root.write('a/b.txt', bytesOf('x'))).toEqual({ status: 'written', path: 'a/b.txt' });
      expect(await readFile(join(fixture.base, 'real-root/a/b.txt'), 'utf8')).toBe('x');
      expect(await findTempFiles(join(fixture.base, 'real-root'))).toEqual([]);
    } finally {
      await root.close();
    }
  });

  it('creates a missing root on request and throws WorkspaceError without it', async () => {
    const missing = join(fixture.root, 'not/yet');
    await expect(openConfinedRoot(missing)).rejects.toMatchObject({ name: 'WorkspaceError', code: 'ENOENT' });
    const root = await openConfinedRoot(missing, { create: true });
    expect(root.realPath).toBe(missing);
    await root.close();
  });

  it('names the real cause when a missing root cannot be created on a read-only filesystem, not ENOENT', async ({
    skip,
  }) => {
    const readOnly = join(fixture.root, 'read-only');
    await mkdir(readOnly);
    const mount = mountReadOnly(readOnly);
    if (mount.kind === 'skipped') {
      skip(mount.skip);
      return;
    }
    try {
      // Node's recursive mkdir says ENOENT here: the writer must report EROFS, and for a deeper root too.
      for (const missing of ['workspace', 'a/b/workspace']) {
        await expect(openConfinedRoot(join(readOnly, missing), { create: true })).rejects.toMatchObject({
          name: 'WorkspaceError',
          code: 'EROFS',
          syscall: 'mkdir',
        });
      }
    } finally {
      mount.release();
    }
  });

  it('throws WorkspaceError when the root is a file', async () => {
    await writeFile(join(fixture.root, 'plain'), '');
    await expect(openConfinedRoot(join(fixture.root, 'plain'))).rejects.toBeInstanceOf(WorkspaceError);
  });

  it('refuses use after close, and close waits for writes in flight', async () => {
    const root = await openConfinedRoot(fixture.root);
    const pending = root.write('late.txt', bytesOf('x'));
    await root.close();
    expect(await pending).toMatchObject({ status: 'written' });
    await expect(root.write('later.txt', bytesOf('x'))).rejects.toThrow('after close');
  });
});
