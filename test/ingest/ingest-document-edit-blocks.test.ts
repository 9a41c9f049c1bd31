import { createHash } from 'node:crypto';
import { link, lstat, readFile, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestManifestSchema, runIngest } from '../../src/ingest/index.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

const base = { runId: 'run-1', nodeId: 'plan', docPath: 'docs/plan.md' } as const;
const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

async function ingest(doc: string, files: Record<string, string> = {}, dryRun = false) {
  const projectDir = await tempProject({ 'docs/plan.md': doc, ...files });
  const result = await runIngest({ projectDir, ...base, dryRun });
  expect(ingestManifestSchema.safeParse(result.manifest).success).toBe(true);
  const read = (file: string) => readFile(path.join(projectDir, 'workspace', file), 'utf8');
  return { projectDir, result, read };
}

const numbered = Array.from({ length: 12 }, (_, line) => `line ${line + 1}`).join('\n') + '\n';

describe('ingestDocument: edit blocks', () => {
  it('creates a file from a /dev/null patch, its entry naming the patch by hash', async () => {
    const patch =
      '--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1,2 @@\n+export const a = 1;\n+export const b = 2;\n';
    const { result, read } = await ingest(fileBlock('diff', 'src/new.ts', patch));
    expect(await read('src/new.ts')).toBe('export const a = 1;\nexport const b = 2;\n');
    const [entry] = result.manifest.artifacts;
    expect(entry).toEqual({
      index: 0,
      lang: 'diff',
      declared_file: 'src/new.ts',
      workspace_path: 'workspace/src/new.ts',
      bytes: 40,
      sha256: sha('export const a = 1;\nexport const b = 2;\n'),
      patch_sha256: sha(patch),
      status: 'written',
      reason: '',
    });
    // Recorded as a version of the file in its own language, not as diff text.
    expect(result.contents).toEqual([
      expect.objectContaining({ workspacePath: 'workspace/src/new.ts', lang: '', status: 'written' }),
    ]);
  });

  it('modifies an existing workspace file with two hunks, exact bytes after', async () => {
    const patch = [
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,3 +1,3 @@',
      '-line 1',
      '+LINE 1',
      ' line 2',
      ' line 3',
      '@@ -10,3 +10,4 @@',
      ' line 10',
      ' line 11',
      '+inserted',
      ' line 12',
      '',
    ].join('\n');
    const { result, read, projectDir } = await ingest(fileBlock('patch', 'src/a.ts', patch), {
      'workspace/src/a.ts': numbered,
    });
    const expected = numbered.replace('line 1\n', 'LINE 1\n').replace('line 11\n', 'line 11\ninserted\n');
    expect(await read('src/a.ts')).toBe(expected);
    expect(result.manifest.summary).toMatchObject({ written: 1, rejected: 0 });
    const events = await readEvents(projectDir, 'run-1');
    expect(events.find((event) => event.event === 'ingest.block')).toMatchObject({
      level: 'INFO',
      status: 'written',
      sha256: sha(expected),
      patch_sha256: sha(patch),
    });
  });

  it('rejects a patch whose context does not match, naming the hunk, and leaves the file unchanged', async () => {
    const patch = '@@ -2,2 +2,2 @@\n line 2\n-line 3\n+LINE 3\n@@ -8,2 +8,2 @@\n line 8\n-line 99\n+x\n';
    const { result, read, projectDir } = await ingest(fileBlock('diff', 'src/a.ts', patch), {
      'workspace/src/a.ts': numbered,
    });
    expect(await read('src/a.ts')).toBe(numbered);
    const [entry] = result.manifest.artifacts;
    expect(entry?.status).toBe('rejected');
    expect(entry?.reason).toMatch(
      /^patch_does_not_apply: hunk 2 \(@@ -8,2 \+8,2 @@\) does not match src\/a\.ts at line 8;/,
    );
    expect(entry?.patch_sha256).toBe(sha(patch));
    expect(result.failed).toBe(true);
    expect(result.contents).toEqual([]);
    const events = await readEvents(projectDir, 'run-1');
    expect(events.map((event) => event.event)).toContain('ingest.block');
    expect(events.find((event) => event.event === 'ingest.block')).toMatchObject({ level: 'ERROR' });
  });

  it('rejects a patch against a file that does not exist, and creates nothing', async () => {
    const { result, projectDir } = await ingest(fileBlock('diff', 'src/gone.ts', '@@ -1 +1 @@\n-a\n+b\n'));
    expect(result.manifest.artifacts[0]?.reason).toMatch(
      /^patch_does_not_apply: src\/gone\.ts does not exist in workspace\/; a patch that creates a file starts with '--- \/dev\/null'/,
    );
    await expect(lstat(path.join(projectDir, 'workspace/src/gone.ts'))).rejects.toThrow();
  });

  it('saves a block naming a .patch or .diff file as it is', async () => {
    const patch = '@@ -1 +1 @@\n-a\n+b\n';
    const { result, read } = await ingest(
      [fileBlock('diff', 'fix.patch', patch), fileBlock('patch', 'changes/x.diff', patch)].join('\n'),
    );
    expect(await read('fix.patch')).toBe(patch);
    expect(await read('changes/x.diff')).toBe(patch);
    expect(result.manifest.artifacts.map((entry) => entry.patch_sha256)).toEqual([undefined, undefined]);
    expect(result.contents.map((content) => content.lang)).toEqual(['diff', 'patch']);
  });

  it('applies two patch blocks for one file in document order, the second against the first result', async () => {
    const first = '@@ -1,2 +1,2 @@\n-line 1\n+one\n line 2\n';
    const second = '@@ -1,2 +1,3 @@\n one\n+one and a half\n line 2\n';
    const { result, read } = await ingest(
      [fileBlock('diff', 'src/a.ts', first), fileBlock('diff', 'src/a.ts', second)].join('\n'),
      { 'workspace/src/a.ts': numbered },
    );
    expect(await read('src/a.ts')).toBe(numbered.replace('line 1\n', 'one\none and a half\n'));
    expect(result.manifest.artifacts.map((entry) => entry.status)).toEqual(['written', 'written']);
    expect(result.contents.map((content) => content.bytes.byteLength)).toEqual([
      Buffer.byteLength(numbered.replace('line 1\n', 'one\n')),
      Buffer.byteLength(numbered.replace('line 1\n', 'one\none and a half\n')),
    ]);
  });

  it('applies a patch to the file a block before it in the same document wrote', async () => {
    const { result, read } = await ingest(
      [
        fileBlock('ts', 'src/a.ts', 'a\nb\n'),
        fileBlock('diff', 'src/a.ts', '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'),
      ].join('\n'),
    );
    expect(await read('src/a.ts')).toBe('a\nc\n');
    expect(result.manifest.artifacts.map((entry) => entry.status)).toEqual(['written', 'written']);
  });

  it('lets a whole-file block after a patch supersede it', async () => {
    const { result, read } = await ingest(
      [
        fileBlock('diff', 'src/a.ts', '@@ -1 +1 @@\n-line 1\n+x\n'),
        fileBlock('ts', 'src/a.ts', 'whole\n'),
      ].join('\n'),
      { 'workspace/src/a.ts': numbered },
    );
    expect(await read('src/a.ts')).toBe('whole\n');
    expect(result.manifest.artifacts.map((entry) => entry.reason.split(':')[0])).toEqual(['superseded', '']);
  });

  it('patches CRLF content and keeps its CRLF bytes', async () => {
    const { read } = await ingest(fileBlock('diff', 'win.txt', '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'), {
      'workspace/win.txt': 'a\r\nb\r\n',
    });
    expect(await read('win.txt')).toBe('a\r\nc\r\n');
  });

  it('applies a patch from a CRLF document to a CRLF file byte for byte', async () => {
    const doc = '```diff file=win.txt\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n```\r\n';
    const { read } = await ingest(doc, { 'workspace/win.txt': 'a\r\nb\r\n' });
    expect(await read('win.txt')).toBe('a\r\nc\r\n');
  });

  it('rejects a patch whose file= escapes by the path rules, before any apply', async () => {
    const { result, projectDir } = await ingest(
      fileBlock('diff', '../x', '--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+owned\n'),
    );
    const [entry] = result.manifest.artifacts;
    expect(entry).toMatchObject({ status: 'rejected', workspace_path: '' });
    expect(entry?.reason).toMatch(/^traversal: /);
    expect(entry?.patch_sha256).toBeUndefined();
    await expect(lstat(path.join(projectDir, 'x'))).rejects.toThrow();
  });

  it('refuses to patch a symlinked file or a hard-linked one: their bytes may be a file outside workspace/', async () => {
    const outside = await tempProject({ 'secret.txt': 'a\n' });
    const projectDir = await tempProject({
      'docs/plan.md': [
        fileBlock('diff', 'sym.txt', '@@ -1 +1 @@\n-a\n+b\n'),
        fileBlock('diff', 'hard.txt', '@@ -1 +1 @@\n-a\n+b\n'),
      ].join('\n'),
      'workspace/.keep': '',
    });
    await symlink(path.join(outside, 'secret.txt'), path.join(projectDir, 'workspace/sym.txt'));
    await link(path.join(outside, 'secret.txt'), path.join(projectDir, 'workspace/hard.txt'));
    const result = await runIngest({ projectDir, ...base });
    expect(result.manifest.artifacts.map((entry) => entry.reason)).toEqual([
      'symlink: workspace/sym.txt cannot be patched: it is not a regular file of its own (symlink); send the whole file instead',
      'patch_does_not_apply: workspace/hard.txt cannot be patched: it is not a regular file of its own (hard_link); send the whole file instead',
    ]);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('a\n');
    expect((await lstat(path.join(projectDir, 'workspace/sym.txt'))).isSymbolicLink()).toBe(true);
  });

  it('patches the file= path, not the path the ---/+++ headers name', async () => {
    const patch = '--- a/other.ts\n+++ b/other.ts\n@@ -1 +1 @@\n-a\n+b\n';
    const { read, projectDir } = await ingest(fileBlock('diff', 'src/a.ts', patch), {
      'workspace/src/a.ts': 'a\n',
      'workspace/other.ts': 'a\n',
    });
    expect(await read('src/a.ts')).toBe('b\n');
    expect(await readFile(path.join(projectDir, 'workspace/other.ts'), 'utf8')).toBe('a\n');
  });

  it('judges a patch in a dry run without writing, chaining in memory', async () => {
    const doc = [
      fileBlock('diff', 'src/n.ts', '--- /dev/null\n+++ b/src/n.ts\n@@ -0,0 +1 @@\n+a\n'),
      fileBlock('diff', 'src/n.ts', '@@ -1 +1 @@\n-a\n+b\n'),
      fileBlock('diff', 'src/n.ts', '@@ -1 +1 @@\n-zzz\n+c\n'),
    ].join('\n');
    const { result, projectDir } = await ingest(doc, {}, true);
    expect(result.manifest.artifacts.map((entry) => entry.reason.split(':')[0])).toEqual([
      'dry_run',
      'dry_run',
      'patch_does_not_apply',
    ]);
    expect(result.manifest.artifacts[1]?.sha256).toBe(sha('b\n'));
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow();
  });
});
