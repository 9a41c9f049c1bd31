import { createHash } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  IngestFailedError,
  ingestDocument,
  ingestManifestSchema,
  runIngest,
} from '../../src/ingest/index.js';
import { manifestPath, parseNodeId, parseRunId, runEventsPath } from '../../src/project/index.js';
import { createMemoryStore, openProject, openProjectStore } from '../../src/store/index.js';
import { fullDiskStore } from '../helpers/full-disk-store.js';
import { hostileNestedLists } from '../helpers/hostile-markdown.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

const base = { runId: parseRunId('run-1'), nodeId: parseNodeId('plan'), docPath: 'docs/plan.md' } as const;
const fixedClock = () => new Date('2026-11-21T12:00:00.000Z');

async function manifestOnDisk(projectDir: string, runId = 'run-1', nodeId = 'plan'): Promise<unknown> {
  return JSON.parse(
    await readFile(path.join(projectDir, '.agent', 'runs', runId, 'manifests', `${nodeId}.json`), 'utf8'),
  );
}

describe('ingestDocument', () => {
  it('writes valid blocks, records a schema-valid manifest and one event per block plus a summary', async () => {
    const doc = [
      '# Plan\n',
      fileBlock('ts', 'src/main.ts', "console.log('hi');"),
      '```bash\nnpm test\n```\n',
      fileBlock('py', 'pkg/__init__.py', ''),
      fileBlock('sh', '../escape.sh', 'rm -rf /'),
    ].join('\n');
    const projectDir = await tempProject({ 'docs/plan.md': doc });

    const manifest = await ingestDocument({ projectDir, ...base, mode: 'team', now: fixedClock });

    expect(ingestManifestSchema.parse(await manifestOnDisk(projectDir))).toEqual(manifest);
    expect(manifest.summary).toEqual({ total_blocks: 3, written: 2, skipped: 0, rejected: 1 });
    expect(manifest.source).toEqual({ kind: 'cli', mode: 'team', doc_path: 'docs/plan.md' });
    expect(manifest.ts).toBe('2026-11-21T12:00:00.000Z');
    expect(await readFile(path.join(projectDir, 'workspace/src/main.ts'), 'utf8')).toBe(
      "console.log('hi');\n",
    );
    expect((await stat(path.join(projectDir, 'workspace/pkg/__init__.py'))).size).toBe(0);
    const [main, init, escape] = manifest.artifacts;
    expect(main).toMatchObject({
      index: 0,
      lang: 'ts',
      declared_file: 'src/main.ts',
      workspace_path: 'workspace/src/main.ts',
      status: 'written',
      reason: '',
    });
    expect(main?.sha256).toBe(createHash('sha256').update("console.log('hi');\n").digest('hex'));
    expect(init).toMatchObject({ bytes: 0, status: 'written' });
    expect(escape).toMatchObject({ status: 'rejected', workspace_path: '' });
    expect(escape?.reason).toMatch(/^traversal: /);
    await expect(lstat(path.join(projectDir, 'escape.sh'))).rejects.toThrow();

    const events = await readEvents(projectDir, 'run-1');
    expect(events.map((event) => [event.event, event.level])).toEqual([
      ['ingest.started', 'INFO'],
      ['ingest.block', 'INFO'],
      ['ingest.block', 'INFO'],
      ['ingest.block', 'ERROR'],
      ['ingest.summary', 'INFO'],
    ]);
    expect(events[0]).toMatchObject({
      run_id: 'run-1',
      node_id: 'plan',
      doc_path: 'docs/plan.md',
      planned: 2,
      planned_paths: ['workspace/src/main.ts', 'workspace/pkg/__init__.py'],
    });
    expect(events[1]).toMatchObject({
      run_id: 'run-1',
      node_id: 'plan',
      doc_path: 'docs/plan.md',
      declared_file: 'src/main.ts',
    });
  });

  it('skips a ```json artifact= block as contract_block and writes no file for it in workspace/', async () => {
    const doc = [
      '# Review\n',
      '```json artifact=issues\n{"issues": []}\n```\n',
      fileBlock('ts', 'src/a.ts', 'x'),
    ].join('\n');
    const projectDir = await tempProject({ 'docs/plan.md': doc });

    const manifest = await ingestDocument({ projectDir, ...base, now: fixedClock });

    expect(manifest.summary).toEqual({ total_blocks: 2, written: 1, skipped: 1, rejected: 0 });
    const [contract, file] = manifest.artifacts;
    expect(contract).toMatchObject({ status: 'skipped', lang: 'json', workspace_path: '' });
    expect(contract?.reason).toMatch(/^contract_block: artifact=issues block is a contract artifact/);
    expect(file).toMatchObject({ status: 'written', workspace_path: 'workspace/src/a.ts' });
    expect(await readdir(path.join(projectDir, 'workspace'), { recursive: true })).toEqual([
      'src',
      'src/a.ts',
    ]);
    await expect(lstat(path.join(projectDir, '.agent/artifacts'))).rejects.toThrow();
  });

  it('records unchanged on a second ingest and replaces the manifest', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'x') });
    await ingestDocument({ projectDir, ...base, now: fixedClock });
    const inode = (await stat(path.join(projectDir, 'workspace/a.ts'))).ino;

    const second = await ingestDocument({
      projectDir,
      ...base,
      now: () => new Date('2026-11-22T00:00:00.000Z'),
    });

    expect(second.artifacts[0]).toMatchObject({ status: 'skipped', workspace_path: 'workspace/a.ts' });
    expect(second.artifacts[0]?.reason).toMatch(/^unchanged: /);
    expect((await stat(path.join(projectDir, 'workspace/a.ts'))).ino).toBe(inode);
    expect(await manifestOnDisk(projectDir)).toMatchObject({ ts: '2026-11-22T00:00:00.000Z' });
  });

  it('returns the bytes it placed: written and unchanged files, never rejected, superseded or failed ones', async () => {
    const doc = [
      fileBlock('ts', 'old.ts', 'same'),
      fileBlock('ts', 'new.ts', 'fresh'),
      fileBlock('py', 'twice.py', 'first'),
      fileBlock('py', 'twice.py', 'second'),
      fileBlock('sh', '../out.sh', 'x'),
      fileBlock('txt', 'dir/x.txt', 'x'),
      '```ts\nno file\n```\n',
    ].join('\n');
    const projectDir = await tempProject({
      'docs/plan.md': doc,
      'workspace/old.ts': 'same\n',
      'workspace/dir': 'a file',
    });

    const result = await runIngest({ projectDir, ...base });

    const encode = (text: string) => new TextEncoder().encode(text);
    expect(result.contents).toEqual([
      {
        workspacePath: 'workspace/old.ts',
        lang: 'ts',
        bytes: encode('same\n'),
        status: 'skipped',
        code: 'unchanged',
      },
      {
        workspacePath: 'workspace/new.ts',
        lang: 'ts',
        bytes: encode('fresh\n'),
        status: 'written',
        code: null,
      },
      {
        workspacePath: 'workspace/twice.py',
        lang: 'py',
        bytes: encode('second\n'),
        status: 'written',
        code: null,
      },
    ]);
    expect(result.manifest.artifacts.map((a) => a.reason.split(':')[0] || a.status)).toEqual([
      'unchanged',
      'written',
      'superseded',
      'written',
      'traversal',
      'not_a_directory',
    ]);
  });

  it('returns no contents from a dry run, even for bytes already on disk', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': `${fileBlock('ts', 'old.ts', 'same')}\n${fileBlock('ts', 'new.ts', 'x')}`,
      'workspace/old.ts': 'same\n',
    });
    const result = await runIngest({ projectDir, ...base, dryRun: true });
    expect(result.manifest.summary.total_blocks).toBe(2);
    expect(result.contents).toEqual([]);
  });

  it('lets the last valid block win and never lets a truncated repeat displace a complete one', async () => {
    const doc = `${fileBlock('ts', 'a.ts', 'one')}\n${fileBlock('ts', './a.ts', 'two')}\n\`\`\`ts file=a.ts\nthree (cut off`;
    const projectDir = await tempProject({ 'docs/plan.md': doc });

    const manifest = await ingestDocument({ projectDir, ...base });

    expect(manifest.artifacts.map((a) => a.reason.split(':')[0] || a.status)).toEqual([
      'superseded',
      'written',
      'unterminated',
    ]);
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('two\n');
  });

  it('rejects every block of a case collision', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': `${fileBlock('md', 'README.md', 'a')}\n${fileBlock('md', 'readme.md', 'b')}`,
    });
    const manifest = await ingestDocument({ projectDir, ...base });
    expect(manifest.artifacts.map((a) => [a.status, a.reason.split(':')[0]])).toEqual([
      ['rejected', 'case_collision'],
      ['rejected', 'case_collision'],
    ]);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  });

  it('applies the block, count and total-bytes limits as too_large and too_many_blocks', async () => {
    const doc = [
      fileBlock('txt', 'a.txt', 'x'.repeat(10)),
      fileBlock('txt', 'b.txt', 'y'.repeat(50)),
      fileBlock('txt', 'c.txt', 'z'.repeat(10)),
      fileBlock('txt', 'd.txt', 'w'),
    ].join('\n');
    const projectDir = await tempProject({ 'docs/plan.md': doc });
    const manifest = await ingestDocument({
      projectDir,
      ...base,
      limits: { maxBlockBytes: 20, maxBlocks: 3, maxTotalBytes: 15 },
    });
    expect(manifest.artifacts.map((a) => a.reason.split(':')[0] || a.status)).toEqual([
      'written',
      'too_large',
      'too_large',
      'too_many_blocks',
    ]);
  });

  it('does not parse a document over max_document_bytes and says so in an ERROR event', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'x'.repeat(100)) });
    const result = await runIngest({ projectDir, ...base, limits: { maxDocumentBytes: 50 } });
    expect(result.problems.map((p) => p.code)).toEqual(['too_large']);
    expect(result.manifest.artifacts).toEqual([]);
    expect(
      (await readEvents(projectDir, 'run-1')).some(
        (e) => e.event === 'ingest.error' && e.code === 'too_large',
      ),
    ).toBe(true);
  });

  it('gives up on a document whose parse overruns max_parse_ms, writing nothing', async () => {
    const hostile = `${'> a\nb\n'.repeat(8_000)}\n${fileBlock('ts', 'a.ts', 'x')}`;
    const projectDir = await tempProject({ 'docs/plan.md': hostile });
    // micromark: the scanner may well finish this document within 1 ms.
    const result = await runIngest({ projectDir, ...base, parser: 'micromark', limits: { maxParseMs: 1 } });
    expect(result.problems.map((p) => p.code)).toEqual(['too_complex']);
    expect(result.manifest.artifacts).toEqual([]);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  });

  it('stops the 16 KB nested-list document at max_parse_ms 500 (a worker terminated mid-line)', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': hostileNestedLists() });
    const result = await runIngest({ projectDir, ...base, parser: 'micromark', limits: { maxParseMs: 500 } });
    expect(result.problems).toEqual([
      {
        code: 'too_complex',
        message: 'docs/plan.md took over max_parse_ms (500 ms) to parse; nothing was written',
      },
    ]);
    expect(result.manifest.artifacts).toEqual([]);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  }, 20_000);

  it('writes the block of the same document with the scanner, the default parser, within the same limit', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': hostileNestedLists() });
    const result = await runIngest({ projectDir, ...base, limits: { maxParseMs: 500 } });
    expect(result.problems).toEqual([]);
    expect(result.manifest.summary.written).toBe(1);
    expect(await readFile(path.join(projectDir, 'workspace', 'a.ts'), 'utf8')).toBe('x\n');
  });

  it('writes nothing but one ERROR event for a document that is not valid UTF-8', async () => {
    const bytes = Buffer.concat([
      Buffer.from(fileBlock('ts', 'a.ts', 'ok')),
      Buffer.from([0xff, 0xfe, 0x80]),
    ]);
    const projectDir = await tempProject({ 'docs/plan.md': bytes });

    const result = await runIngest({ projectDir, ...base });

    expect(result.problems.map((p) => p.code)).toEqual(['invalid_utf8']);
    expect(result.manifestPath).toBeNull();
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow();
    await expect(lstat(path.join(projectDir, '.agent/runs/run-1/manifests'))).rejects.toThrow();
    const errors = (await readEvents(projectDir, 'run-1')).filter((e) => e.level === 'ERROR');
    expect(errors.map((e) => e.event)).toEqual(['ingest.error', 'ingest.summary']);
  });

  it('ignores a UTF-8 BOM and keeps CRLF line endings in written files', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': '\uFEFF```ts file=a.ts\r\nline1\r\nline2\r\n```\r\n',
    });
    await ingestDocument({ projectDir, ...base });
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('line1\r\nline2\r\n');
  });

  it('writes nothing at all in a dry run and reports what would happen', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': `${fileBlock('ts', 'a.ts', 'x')}\n${fileBlock('ts', '/etc/x', 'y')}`,
    });
    const manifest = await ingestDocument({ projectDir, ...base, dryRun: true });
    expect(manifest.artifacts.map((a) => [a.status, a.reason.split(':')[0]])).toEqual([
      ['written', 'dry_run'],
      ['rejected', 'absolute_path'],
    ]);
    expect((await readdir(projectDir)).sort()).toEqual(['docs']);
  });

  it('refuses and redacts credentials in a file= path and a document path, in reasons, results and events', async () => {
    const token = 'ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', `../${token}/a.ts`, 'x') });
    const manifest = await ingestDocument({ projectDir, ...base });
    const missing = await runIngest({
      projectDir,
      ...base,
      nodeId: parseNodeId('missing'),
      docPath: `docs/sk-proj-${'Z'.repeat(40)}.md`,
    });

    expect(manifest.artifacts[0]?.reason).not.toContain(token);
    // A secret in a path is refused before any other rule (docs/security.md, "Secrets"), and recorded redacted.
    expect(manifest.artifacts[0]?.reason).toMatch(/^secret_in_path: /);
    expect(manifest.artifacts[0]?.declared_file).toBe('../[REDACTED]/a.ts');
    // The document itself is refused before it is read: nothing written, no manifest, the path redacted.
    expect(missing.problems.map((problem) => problem.code)).toEqual(['secret_in_path']);
    expect(missing.problems[0]?.message).not.toContain('Z'.repeat(40));
    expect(missing.manifestPath).toBeNull();
    expect(missing.manifest.source.doc_path).toBe('docs/[REDACTED].md');
    const eventsText = await readFile(path.join(projectDir, '.agent/runs/run-1/events.jsonl'), 'utf8');
    expect(eventsText).not.toContain(token);
    expect(eventsText).not.toContain('Z'.repeat(40));
    expect(eventsText).toContain('[REDACTED]');
  });

  it('throws IngestFailedError under failMode closed when a block is rejected', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', '../x.ts', 'x') });
    const failure = ingestDocument({ projectDir, ...base, failMode: 'closed' });
    await expect(failure).rejects.toBeInstanceOf(IngestFailedError);
    await expect(failure).rejects.toThrow(/1 block\(s\) rejected/);
  });

  it('throws for misuse: an invalid run id or a document outside the project', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': '' });
    // The library's edge checks a plain string id.
    await expect(runIngest({ projectDir, ...base, runId: '../x' })).rejects.toThrow(
      /runId "..\/x" must match/,
    );
    await expect(runIngest({ projectDir, ...base, docPath: '../outside.md' })).rejects.toThrow(
      /not inside the project/,
    );
  });

  it('accepts a document whose name merely starts with two dots', async () => {
    const projectDir = await tempProject({ '..notes.md': fileBlock('txt', 'n.txt', 'n') });
    const manifest = await ingestDocument({ projectDir, ...base, docPath: '..notes.md' });
    expect(manifest.source.doc_path).toBe('..notes.md');
    expect(manifest.summary.written).toBe(1);
  });
});

describe('runIngest with the document bytes', () => {
  const encode = (text: string): Uint8Array => new TextEncoder().encode(text);

  it('ingests the bytes it is given and never reads the document file', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'disk.ts', 'disk') });
    const result = await runIngest({
      projectDir,
      ...base,
      content: encode(fileBlock('ts', 'given.ts', 'given')),
    });
    expect(result.manifest.artifacts.map((a) => a.workspace_path)).toEqual(['workspace/given.ts']);
    await expect(lstat(path.join(projectDir, 'workspace/disk.ts'))).rejects.toThrow(/ENOENT/);

    const gone = await runIngest({
      projectDir,
      ...base,
      nodeId: parseNodeId('gone'),
      docPath: 'docs/never-written.md',
      content: encode(fileBlock('ts', 'gone.ts', 'x')),
    });
    expect(gone.problems).toEqual([]);
    expect(gone.manifest.summary).toMatchObject({ total_blocks: 1, written: 1 });
  });

  it.each([
    ['over max_document_bytes', encode(fileBlock('ts', 'a.ts', 'x'.repeat(100))), 'too_large'],
    [
      'not valid UTF-8',
      Buffer.concat([encode(fileBlock('ts', 'a.ts', 'ok')), Buffer.from([0xff, 0xfe])]),
      'invalid_utf8',
    ],
  ] as const)('applies the read rules to given bytes %s: %s, nothing written', async (_, content, code) => {
    const projectDir = await tempProject();
    const result = await runIngest({ projectDir, ...base, content, limits: { maxDocumentBytes: 50 } });
    expect(result.problems.map((p) => p.code)).toEqual([code]);
    expect(result.manifest.artifacts).toEqual([]);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  });

  it('drops a leading BOM from given bytes as from a read document', async () => {
    const projectDir = await tempProject();
    await runIngest({ projectDir, ...base, content: encode('\uFEFF```ts file=a.ts\r\nline1\r\n```\r\n') });
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('line1\r\n');
  });

  it('parses the text given with the bytes instead of decoding them, under the same rules', async () => {
    const projectDir = await tempProject();
    const text = '\uFEFF```ts file=a.ts\nline1\n```\n';
    const content = encode(text);
    await runIngest({ projectDir, ...base, content, text });
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('line1\n');
    // max_document_bytes counts the bytes.
    const over = await runIngest({ projectDir, ...base, content, text, limits: { maxDocumentBytes: 10 } });
    expect(over.problems.map((p) => p.code)).toEqual(['too_large']);
  });
});

describe('block outcomes as data', () => {
  it("carries each block's code and message, and builds the manifest reason from them", async () => {
    const projectDir = await tempProject({
      'docs/plan.md': [
        fileBlock('ts', 'new.ts', 'x'),
        fileBlock('ts', 'same.ts', 'same'),
        fileBlock('sh', '../x.sh', 'y'),
      ].join('\n'),
      'workspace/same.ts': 'same\n',
    });
    const result = await runIngest({ projectDir, ...base });
    expect(result.blocks.map((block) => [block.status, block.code])).toEqual([
      ['written', null],
      ['skipped', 'unchanged'],
      ['rejected', 'traversal'],
    ]);
    result.blocks.forEach((block, index) => {
      expect(result.manifest.artifacts[index]?.reason).toBe(
        block.code === null ? '' : `${block.code}: ${block.message}`,
      );
    });
  });

  it('gives a block a dry run would write the code dry_run, keeping the manifest entry as before', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'x') });
    const result = await runIngest({ projectDir, ...base, dryRun: true });
    expect(result.blocks[0]).toMatchObject({ status: 'written', code: 'dry_run', message: 'would write' });
    expect(result.manifest.artifacts[0]).toMatchObject({ status: 'written', reason: 'dry_run: would write' });
  });
});

describe('fail-open', () => {
  it('returns a result and writes an ERROR event when the workspace cannot be written', async () => {
    // Root ignores permission bits, so make workspace/ unusable by making it a regular file.
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'a.ts', 'x'),
      workspace: 'not a directory',
    });

    const result = await runIngest({ projectDir, ...base });

    expect(result.failed).toBe(true);
    expect(result.problems.map((p) => p.code)).toEqual(['io_error']);
    expect(result.manifest.artifacts[0]).toMatchObject({ status: 'skipped' });
    expect(result.manifest.artifacts[0]?.reason).toMatch(/^io_error: /);
    const events = await readEvents(projectDir, 'run-1');
    expect(events.filter((e) => e.event === 'ingest.error')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ event: 'ingest.summary', level: 'ERROR' });
    expect(await manifestOnDisk(projectDir)).toMatchObject({ summary: { skipped: 1 } });
  });

  it('returns a result when even .agent/ cannot be written (the problem goes to stderr)', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'a.ts', 'x'),
      '.agent': 'a file',
    });
    const result = await runIngest({ projectDir, ...base });
    expect(result.manifestPath).toBeNull();
    // The events file, the workspace lock and the manifest: each cannot be made under a file named .agent.
    expect(result.problems.map((p) => p.code)).toEqual(['io_error', 'io_error', 'io_error']);
    expect(result.problems[1]?.message).toMatch(/workspace\.lock.*written without the lock/);
    expect(await readFile(path.join(projectDir, 'workspace/a.ts'), 'utf8')).toBe('x\n');
  });

  it('reports events it could not write (a full disk) as an io_error problem, so failMode closed fails', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'x') });
    // Every event write fails with ENOSPC, as on a full .agent/; the manifest still finds room.
    const project = openProject(projectDir, { store: fullDiskStore(openProjectStore(projectDir)) });

    const result = await runIngest({ projectDir: project, ...base });

    expect(result.manifestPath).toBe('.agent/runs/run-1/manifests/plan.json');
    expect(result.problems).toEqual([
      {
        code: 'io_error',
        message: expect.stringMatching(/^events were not all written: .*ENOSPC/) as string,
      },
    ]);
    expect(result.failed).toBe(true);
    await expect(ingestDocument({ projectDir: project, ...base, failMode: 'closed' })).rejects.toThrow(
      IngestFailedError,
    );
    await project.store.close();
  });

  it('refuses a symlinked directory inside the workspace and leaves the outside untouched', async () => {
    const outside = await tempProject({ 'secret.txt': 'keep' });
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('txt', 'link/secret.txt', 'owned') });
    await mkdir(path.join(projectDir, 'workspace'));
    await symlink(outside, path.join(projectDir, 'workspace/link'));

    const manifest = await ingestDocument({ projectDir, ...base });

    expect(manifest.artifacts[0]?.status).toBe('rejected');
    expect(manifest.artifacts[0]?.reason).toMatch(/^symlink: /);
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('keep');
  });
});

describe("the project's store", () => {
  it('writes the block into workspace/, and the manifest and events into a memory store, nothing under .agent/', async () => {
    const dir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'src/a.ts', 'a') });
    const project = openProject(dir, { store: createMemoryStore() });

    const manifest = await ingestDocument({ projectDir: project, ...base, now: fixedClock });

    expect(manifest.summary).toMatchObject({ total_blocks: 1, written: 1 });
    expect(await readFile(path.join(dir, 'workspace/src/a.ts'), 'utf8')).toBe('a\n');
    await expect(lstat(path.join(dir, '.agent'))).rejects.toThrow(/ENOENT/);
    const stored = await project.store.readText(manifestPath(base.runId, base.nodeId));
    expect(JSON.parse(stored ?? 'null')).toEqual(manifest);
    const events = (await project.store.readText(runEventsPath(base.runId)))
      ?.trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events?.map((event) => event['event'])).toEqual([
      'ingest.started',
      'ingest.block',
      'ingest.summary',
    ]);
    expect(events?.at(-1)).toMatchObject({
      run_id: 'run-1',
      node_id: 'plan',
      manifest_path: manifestPath(base.runId, base.nodeId),
    });
    // The workspace lock was taken and released in the store too.
    expect(await project.store.list('.agent')).toEqual([{ name: 'runs', kind: 'folder' }]);
  });

  it('refuses a run folder that is a symlink to an outside folder: no event line or manifest lands there', async () => {
    const outside = await tempProject();
    const dir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'x') });
    await mkdir(path.join(dir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(dir, '.agent/runs/run-1'));

    const result = await runIngest({ projectDir: dir, ...base });

    expect(result.manifestPath).toBeNull();
    expect(result.failed).toBe(true);
    expect(result.problems.map((problem) => problem.code)).toEqual(['io_error', 'io_error']);
    expect(result.problems[0]?.message).toMatch(
      /^cannot open \.agent\/runs\/run-1\/events\.jsonl: .*symlink/,
    );
    expect(result.problems[1]?.message).toMatch(/^manifest not written to .*write_refused: .*symlink/);
    // Fail-open: the workspace is not in the run folder, and its file is written.
    expect(await readFile(path.join(dir, 'workspace/a.ts'), 'utf8')).toBe('x\n');
    expect(await readdir(outside)).toEqual([]);
  });
});

describe('event file under concurrent ingests', () => {
  it('keeps every line whole when many ingests of one run append at once', async () => {
    const files: Record<string, string> = {};
    for (let n = 0; n < 8; n++)
      files[`docs/d${n}.md`] = Array.from({ length: 20 }, (_, i) =>
        fileBlock('txt', `d${n}/f${i}.txt`, `${n}-${i}`),
      ).join('\n');
    const projectDir = await tempProject(files);
    await writeFile(path.join(projectDir, 'marker'), '');

    await Promise.all(
      Object.keys(files).map((docPath, n) =>
        runIngest({ projectDir, ...base, nodeId: parseNodeId(`d${n}`), docPath, durability: 'none' }),
      ),
    );

    const events = await readEvents(projectDir, 'run-1');
    // Per document: ingest.started, 20 ingest.block, ingest.summary.
    expect(events).toHaveLength(8 * 22);
    expect(events.filter((e) => e.event === 'ingest.started')).toHaveLength(8);
    expect(events.filter((e) => e.event === 'ingest.summary')).toHaveLength(8);
  });
});

describe('paths agents really write', () => {
  it('writes file=workspace/src/p.ts to workspace/workspace/ and names the doubled prefix on its entry and event', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'workspace/src/p.ts', 'export {};'),
    });
    const result = await runIngest({ projectDir, ...base });

    expect(await readFile(path.join(projectDir, 'workspace/workspace/src/p.ts'), 'utf8')).toBe(
      'export {};\n',
    );
    await expect(lstat(path.join(projectDir, 'workspace/src/p.ts'))).rejects.toThrow(/ENOENT/);
    const warning =
      'workspace_prefix: file= path starts with workspace/, so the block goes to workspace/workspace/src/p.ts; paths are relative to workspace/: write file=src/p.ts';
    expect(result.manifest.artifacts).toEqual([
      expect.objectContaining({
        status: 'written',
        reason: '',
        workspace_path: 'workspace/workspace/src/p.ts',
        warnings: [warning],
      }),
    ]);
    expect(ingestManifestSchema.parse(await manifestOnDisk(projectDir))).toEqual(result.manifest);
    const block = (await readEvents(projectDir, 'run-1')).find((event) => event.event === 'ingest.block');
    expect(block).toMatchObject({ level: 'WARNING', status: 'written', warnings: [warning] });
  });

  it('skips ```ts:src/x.ts and ```ts title=src/y.ts with the line to write, and lists no ordinary block', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': [
        '```c++\nint a;\n```\n',
        '```js {1,3}\nlet a;\n```\n',
        '```ts:src/x.ts\nexport const x = 1;\n```\n',
        '```ts title=src/y.ts\nexport const y = 1;\n```\n',
      ].join('\n'),
    });
    const { manifest } = await runIngest({ projectDir, ...base });

    expect(manifest.artifacts.map((entry) => [entry.status, entry.declared_file, entry.reason])).toEqual([
      [
        'skipped',
        'src/x.ts',
        "lang_colon_path: info string joins the path to the language with ':' (ts:src/x.ts); write ```ts file=src/x.ts",
      ],
      ['skipped', '', 'unsupported_key: info string uses title=; write ```ts file=src/y.ts'],
    ]);
    expect(manifest.summary).toEqual({ total_blocks: 2, written: 0, skipped: 2, rejected: 0 });
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  });
});
