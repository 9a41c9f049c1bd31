import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../../src/artifacts/store/append-records.js';
import { readPathVersions } from '../../../src/artifacts/store/artifact-index.js';
import { PATH_INDEX_DIR } from '../../../src/project/index.js';
import { BundleError } from '../../../src/artifacts/bundle/bundle-error.js';
import type { BundleErrorCode } from '../../../src/artifacts/bundle/bundle-error.js';
import { bundleRun } from '../../../src/artifacts/bundle/bundle-run.js';
import { importBundle } from '../../../src/artifacts/bundle/import-bundle.js';
import { openObjectStore } from '../../../src/store/object-store.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project, ProjectStore } from '../../../src/store/index.js';
import { gzipTar, rawTar, readTarEntries } from '../../helpers/raw-tar.js';
import type { RawEntry } from '../../helpers/raw-tar.js';
import type { ArtifactRecord } from '../../../src/artifacts/artifact-record.js';
import type { TraceContent } from '../../../src/artifacts/trace-content.js';
import { folderFiles, recordRun, shareBundledRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';

const RUN = 'run-2026-02-24';
const RUN_DIR = `.agent/runs/${RUN}`;
const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** Records a run in a fresh project and bundles it into a folder of its own; returns both. */
async function bundledRun(): Promise<{ source: string; file: string }> {
  const source = await tempProject();
  await recordRun(source, RUN);
  const file = path.join(await tempProject(), 'run.tar.gz');
  await bundleRun(source, RUN, file);
  return { source, file };
}

// Most tests only read the bundle and its source: one is recorded for the file, and none of them writes to it.
const sharedBundle = shareBundledRun(RUN);

async function refusal(promise: Promise<unknown>): Promise<BundleError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  return error as BundleError;
}

/** The version paths of a run's records (every type but trace). */
async function versionPaths(project: string): Promise<string[]> {
  const { records } = await readArtifactRecords(project, RUN);
  return [...new Set(records.filter((record) => record.type !== 'trace').map((record) => record.path))];
}

describe('importBundle', () => {
  it('round-trips a run into a fresh project: same folder bytes, objects, records and path index', async () => {
    const { source, file } = await bundledRun();
    const runFiles = await folderFiles(path.join(source, RUN_DIR));
    const records = await readArtifactRecords(source, RUN);
    const paths = await versionPaths(source);
    const versions = await Promise.all(paths.map((versionPath) => readPathVersions(source, versionPath)));
    await rm(source, { recursive: true, force: true });

    const target = await tempProject();
    const summary = await importBundle(target, file);
    expect(summary).toEqual({
      runId: RUN,
      files: 5,
      objects: 8,
      objectsStored: 8,
      alreadyImported: false,
    });
    expect(await folderFiles(path.join(target, RUN_DIR))).toEqual(runFiles);
    expect(await readArtifactRecords(target, RUN)).toEqual(records);
    const store = await openObjectStore(target);
    try {
      for (const record of records.records) expect(await store.verify(record.contentHash)).toBe('ok');
    } finally {
      await store.close();
    }
    expect(await Promise.all(paths.map((versionPath) => readPathVersions(target, versionPath)))).toEqual(
      versions,
    );
    expect((await readdir(path.join(target, '.agent', 'runs'))).sort()).toEqual([RUN]);
  });

  it('keeps empty folders of the run folder', async () => {
    const source = await tempProject();
    await recordRun(source, RUN);
    await mkdir(path.join(source, RUN_DIR, 'replies', 'none'), { recursive: true });
    const file = path.join(await tempProject(), 'run.tar.gz');
    await bundleRun(source, RUN, file);
    const target = await tempProject();
    await importBundle(target, file);
    expect(await readdir(path.join(target, RUN_DIR, 'replies'))).toEqual(['none']);
  });

  it('round-trips a run file whose path needs a pax header (over 100 bytes)', async () => {
    const source = await tempProject();
    await recordRun(source, RUN);
    const long = `${RUN_DIR}/manifests/${'node-with-a-very-long-id-'.repeat(8)}.json`;
    await writeFile(path.join(source, long), '{"long":true}\n');
    const file = path.join(await tempProject(), 'run.tar.gz');
    await bundleRun(source, RUN, file);
    const target = await tempProject();
    await importBundle(target, file);
    expect(await readFile(path.join(target, long), 'utf8')).toBe('{"long":true}\n');
  });

  it('reports a second import of the same bundle as already imported and writes nothing', async () => {
    const { file } = await sharedBundle();
    const target = await tempProject();
    await importBundle(target, file);
    const before = await treeDigest(target);
    expect(await importBundle(target, file)).toEqual({
      runId: RUN,
      files: 5,
      objects: 8,
      objectsStored: 0,
      alreadyImported: true,
    });
    expect(await treeDigest(target)).toBe(before);
  });

  it('stores only the objects new to the project', async () => {
    const { source, file } = await sharedBundle();
    const target = await tempProject();
    const store = await openObjectStore(target);
    try {
      const { records } = await readArtifactRecords(source, RUN);
      const shared = records.find((record) => record.path === 'docs/plan.md')!;
      const sourceStore = await openObjectStore(source);
      await store.put(await sourceStore.get(shared.contentHash));
      await sourceStore.close();
    } finally {
      await store.close();
    }
    expect(await importBundle(target, file)).toMatchObject({ objects: 8, objectsStored: 7 });
  });

  it('restores missing objects and index lines when the run is already there', async () => {
    const { file } = await sharedBundle();
    const target = await tempProject();
    await importBundle(target, file);
    const paths = await versionPaths(target);
    const versions = await Promise.all(paths.map((versionPath) => readPathVersions(target, versionPath)));
    await rm(path.join(target, '.agent', 'objects'), { recursive: true, force: true });
    await rm(path.join(target, PATH_INDEX_DIR), { recursive: true, force: true });
    expect(await importBundle(target, file)).toMatchObject({ alreadyImported: true, objectsStored: 8 });
    expect(await Promise.all(paths.map((versionPath) => readPathVersions(target, versionPath)))).toEqual(
      versions,
    );
  });

  it('accepts a bundle without an object the project already holds intact', async () => {
    const { source, file } = await sharedBundle();
    const entries = await readTarEntries(file);
    const { records } = await readArtifactRecords(source, RUN);
    const plan = records.find((record) => record.path === 'docs/plan.md')!;
    const planEntry = `.agent/objects/sha256/${plan.contentHash.slice(7, 9)}/${plan.contentHash.slice(9)}`;
    const thin = path.join(await tempProject(), 'thin.tar.gz');
    await writeFile(thin, gzipTar(entries.filter((entry) => entry.path !== planEntry)));
    const target = await tempProject();
    const store = await openObjectStore(target);
    await store.put(new TextEncoder().encode('# Plan\n\nBuild the API.\n'));
    await store.close();
    expect(await importBundle(target, thin)).toMatchObject({
      objects: 8,
      objectsStored: 7,
      alreadyImported: false,
    });
  });

  it('refuses with run_exists when the project has a different run of that id, writing nothing', async () => {
    const { file } = await sharedBundle();
    const target = await tempProject();
    await recordRun(target, RUN, { apiText: 'export const api = "theirs";\n' });
    const before = await treeDigest(target);
    const error = await refusal(importBundle(target, file));
    expect(error.code).toBe('run_exists');
    expect(error.message).toMatch(/move that run folder away/);
    expect(await treeDigest(target)).toBe(before);
  });

  it('refuses with project_unusable when .agent/runs is a symlink, writing nothing', async () => {
    const { file } = await sharedBundle();
    const target = await tempProject();
    const elsewhere = await tempProject();
    await mkdir(path.join(target, '.agent'));
    await symlink(elsewhere, path.join(target, '.agent', 'runs'));
    const before = [await treeDigest(target), await treeDigest(elsewhere)];
    expect((await refusal(importBundle(target, file))).code).toBe('project_unusable');
    expect([await treeDigest(target), await treeDigest(elsewhere)]).toEqual(before);
  });
});

/** How one hostile bundle is made from the entries of a good one. */
interface HostileCase {
  readonly name: string;
  readonly code: BundleErrorCode;
  /** The bundle's entries changed, or the raw bytes of the bundle file. */
  readonly make: (entries: RawEntry[], good: Buffer) => RawEntry[] | Buffer;
  readonly maxBytes?: number;
}

const body = (entries: readonly RawEntry[], entryPath: string): string =>
  String(entries.find((entry) => entry.path === entryPath)?.body ?? '');
const replaceBody = (entries: RawEntry[], entryPath: string, next: string): RawEntry[] =>
  entries.map((entry) => (entry.path === entryPath ? { ...entry, body: next } : entry));
const append =
  (...extra: RawEntry[]) =>
  (entries: RawEntry[]) => [...entries, ...extra];
const isObject = (entry: RawEntry): boolean => entry.path.startsWith('.agent/objects/');
const objectPathOf = (hex: string): string => `.agent/objects/sha256/${hex.slice(0, 2)}/${hex.slice(2)}`;

/** Rewrites bundle.json so its file list matches the (changed) run files: only the change under test is wrong. */
function relist(entries: RawEntry[]): RawEntry[] {
  const manifest = JSON.parse(body(entries, '.agent/bundle.json')) as { files: unknown[] };
  manifest.files = entries
    .filter((entry) => (entry.type ?? 'File') === 'File' && entry.path.startsWith(`${RUN_DIR}/`))
    .map((entry) => {
      const bytes = typeof entry.body === 'string' ? Buffer.from(entry.body) : Buffer.from(entry.body ?? []);
      return { path: entry.path, sha256: sha256(bytes), bytes: bytes.length };
    });
  return replaceBody(entries, '.agent/bundle.json', JSON.stringify(manifest));
}

/** Rewrites the first record of artifacts.jsonl that `pick` selects with `change`, and relists the run files. */
const rewriteRecord =
  (pick: (record: ArtifactRecord) => boolean, change: Partial<ArtifactRecord>) =>
  (entries: RawEntry[]): RawEntry[] => {
    const recordsPath = `${RUN_DIR}/artifacts.jsonl`;
    const lines = body(entries, recordsPath).trimEnd().split('\n');
    const index = lines.findIndex((line) => pick(JSON.parse(line) as ArtifactRecord));
    lines[index] = JSON.stringify({ ...(JSON.parse(lines[index] ?? '') as ArtifactRecord), ...change });
    return relist(replaceBody(entries, recordsPath, `${lines.join('\n')}\n`));
  };
const isFileRecord = (record: ArtifactRecord): boolean => record.type === 'file';

/**
 * Rewrites the content of the first trace with `change`: the trace object gets the new bytes under their new
 * hash, the record and bundle.json's objects follow, so only the trace's content is wrong.
 */
const rewriteTrace =
  (change: (trace: TraceContent) => TraceContent) =>
  (entries: RawEntry[]): RawEntry[] => {
    const recordsPath = `${RUN_DIR}/artifacts.jsonl`;
    const lines = body(entries, recordsPath).trimEnd().split('\n');
    const index = lines.findIndex((line) => (JSON.parse(line) as ArtifactRecord).type === 'trace');
    const record = JSON.parse(lines[index] ?? '') as ArtifactRecord;
    const oldHex = record.contentHash.slice('sha256:'.length);
    const oldPath = objectPathOf(oldHex);
    const trace = JSON.parse(body(entries, oldPath)) as TraceContent;
    const bytes = `${JSON.stringify(change(trace), null, 2)}\n`;
    const hex = sha256(bytes);
    lines[index] = JSON.stringify({ ...record, contentHash: `sha256:${hex}` });
    const others = lines.some((line) => line.includes(oldHex));
    const rewritten = entries
      .filter((entry) => others || entry.path !== oldPath)
      .concat([{ path: objectPathOf(hex), body: bytes }]);
    const manifest = JSON.parse(body(rewritten, '.agent/bundle.json')) as { objects: string[] };
    manifest.objects = [
      ...new Set(lines.map((line) => (JSON.parse(line) as ArtifactRecord).contentHash)),
    ].sort();
    const withManifest = replaceBody(rewritten, '.agent/bundle.json', JSON.stringify(manifest));
    return relist(replaceBody(withManifest, recordsPath, `${lines.join('\n')}\n`));
  };

const hostile: readonly HostileCase[] = [
  {
    name: 'a traversal below the run folder',
    code: 'unsafe_path',
    make: append({ path: `${RUN_DIR}/../../evil`, body: 'x' }),
  },
  { name: 'a path starting with ..', code: 'unsafe_path', make: append({ path: '../../evil', body: 'x' }) },
  { name: 'an absolute path', code: 'unsafe_path', make: append({ path: '/tmp/evil', body: 'x' }) },
  { name: "a '.' segment", code: 'unsafe_path', make: append({ path: `${RUN_DIR}/./notes.txt`, body: 'x' }) },
  {
    name: 'an empty segment',
    code: 'unsafe_path',
    make: append({ path: `${RUN_DIR}//notes.txt`, body: 'x' }),
  },
  { name: 'a backslash', code: 'unsafe_path', make: append({ path: `${RUN_DIR}\\..\\evil`, body: 'x' }) },
  {
    name: 'a control character',
    code: 'unsafe_path',
    make: append({ path: `${RUN_DIR}/a\u0007b`, body: 'x' }),
  },
  {
    name: 'a symlink entry',
    code: 'link_entry',
    make: append({ path: `${RUN_DIR}/passwd`, type: 'SymbolicLink', linkpath: '/etc/passwd' }),
  },
  {
    name: 'a hard link entry',
    code: 'link_entry',
    make: append({ path: `${RUN_DIR}/passwd`, type: 'Link', linkpath: '/etc/passwd' }),
  },
  {
    name: 'a character device',
    code: 'unsupported_entry',
    make: append({ path: `${RUN_DIR}/tty`, type: 'CharacterDevice' }),
  },
  { name: 'a FIFO', code: 'unsupported_entry', make: append({ path: `${RUN_DIR}/pipe`, type: 'FIFO' }) },
  {
    name: 'an entry outside .agent/',
    code: 'unexpected_entry',
    make: append({ path: 'workspace/a.ts', body: 'evil()' }),
  },
  {
    name: 'an entry elsewhere in .agent/',
    code: 'unexpected_entry',
    make: append({ path: '.agent/config.yaml', body: 'x' }),
  },
  {
    name: "another run's file",
    code: 'unexpected_entry',
    make: append({ path: '.agent/runs/other/state.json', body: '{}' }),
  },
  { name: 'a run lock', code: 'unexpected_entry', make: append({ path: `${RUN_DIR}/lock`, body: '{}' }) },
  {
    name: 'a folder in the object store',
    code: 'unexpected_entry',
    make: append({ path: '.agent/objects/sha256/ab/', type: 'Directory' }),
  },
  {
    name: 'an object whose bytes do not match its name',
    code: 'hash_mismatch',
    make: (entries) => entries.map((entry) => (isObject(entry) ? { ...entry, body: 'tampered' } : entry)),
  },
  {
    name: 'a run file that does not match bundle.json',
    code: 'hash_mismatch',
    make: (entries) => replaceBody(entries, `${RUN_DIR}/state.json`, '{"status":"completed"}\n'),
  },
  ...(
    [
      ['out of workspace/ by ..', 'workspace/../../../../etc/hostname'],
      ['absolute', '/etc/passwd'],
      ['into .git', 'workspace/.git/hooks/pre-commit'],
      ['with a NUL', 'workspace/a\u0000b.ts'],
      ['with a backslash', 'workspace/a\\b.ts'],
      ['with a bidi control', 'workspace/a\u202eb.ts'],
    ] as const
  ).map(([what, recorded]): HostileCase => ({
    name: `a file record whose path is ${what}`,
    code: 'unsafe_record_path',
    make: rewriteRecord(isFileRecord, { path: recorded }),
  })),
  {
    name: 'a message record whose document is outside docs/ and audits/',
    code: 'unsafe_record_path',
    make: rewriteRecord((record) => record.type === 'message', { path: 'workspace/../../notes.md' }),
  },
  {
    name: 'a trace record at another path',
    code: 'unsafe_record_path',
    make: rewriteRecord((record) => record.type === 'trace', { path: '/etc/passwd' }),
  },
  {
    name: 'a trace whose document path is outside the project',
    code: 'unsafe_record_path',
    make: rewriteTrace((trace) => ({ ...trace, document: { ...trace.document!, path: '../../etc/passwd' } })),
  },
  {
    name: 'a trace whose manifest path is outside the run',
    code: 'unsafe_record_path',
    make: rewriteTrace((trace) => ({
      ...trace,
      ingest: { ...trace.ingest!, manifest_path: '../../../etc/secret.json' },
    })),
  },
  {
    name: 'an object before the run records',
    code: 'unexpected_entry',
    make: (entries) => {
      const objects = entries.filter(isObject);
      const [manifest, ...rest] = entries.filter((entry) => !isObject(entry));
      return [manifest!, ...objects, ...rest];
    },
  },
  {
    name: 'a run file not listed in bundle.json',
    code: 'unlisted_entry',
    make: append({ path: `${RUN_DIR}/manifests/extra.json`, body: '{}' }),
  },
  // A run folder holds its records only: an arbitrary file is refused even when listed and hashed.
  ...[
    `${RUN_DIR}/extra.txt`,
    `${RUN_DIR}/STATE.json`,
    `${RUN_DIR}/docs/huge.bin`,
    `${RUN_DIR}/manifests/a/b.json`,
  ].map((extra): HostileCase => ({
    name: `a run file a run folder never holds (${extra.slice(RUN_DIR.length + 1)})`,
    code: 'unexpected_entry',
    make: (entries: RawEntry[]) => relist(append({ path: extra, body: 'x' })(entries)),
  })),
  {
    name: 'a listed run file that is absent',
    code: 'missing_file',
    make: (entries) => entries.filter((entry) => entry.path !== `${RUN_DIR}/events.jsonl`),
  },
  { name: 'a missing bundle.json', code: 'missing_manifest', make: (entries) => entries.slice(1) },
  {
    name: 'bundle.json that is not first',
    code: 'missing_manifest',
    make: (entries) => [...entries.slice(1, 2), entries[0]!, ...entries.slice(2)],
  },
  {
    name: 'bundle.json that is not JSON',
    code: 'invalid_manifest',
    make: (entries) => replaceBody(entries, '.agent/bundle.json', '{'),
  },
  {
    name: 'bundle.json of another version',
    code: 'invalid_manifest',
    make: (entries) =>
      replaceBody(
        entries,
        '.agent/bundle.json',
        body(entries, '.agent/bundle.json').replace('"version": 1', '"version": 2'),
      ),
  },
  {
    name: 'a duplicate entry',
    code: 'duplicate_entry',
    make: (entries) => [...entries, entries.find((entry) => entry.path === `${RUN_DIR}/state.json`)!],
  },
  {
    name: 'an entry differing only by case',
    code: 'duplicate_entry',
    make: append({ path: `${RUN_DIR}/manifests/PLAN.json`, body: '{}' }),
  },
  {
    name: 'an entry below a file',
    code: 'duplicate_entry',
    make: append({ path: `${RUN_DIR}/state.json/x/`, type: 'Directory' }),
  },
  {
    name: 'an object absent from the bundle and the store',
    code: 'missing_object',
    // The target's own run shares some contents, never its traces: those stay missing.
    make: (entries) => entries.filter((entry) => !isObject(entry)),
  },
  {
    name: 'an object not listed in bundle.json',
    code: 'unlisted_entry',
    make: (entries) => {
      const manifest = JSON.parse(body(entries, '.agent/bundle.json')) as { objects: string[] };
      manifest.objects = manifest.objects.slice(1);
      return replaceBody(entries, '.agent/bundle.json', JSON.stringify(manifest));
    },
  },
  {
    name: 'a record of another run',
    code: 'foreign_record',
    make: (entries) =>
      relist(
        replaceBody(
          entries,
          `${RUN_DIR}/artifacts.jsonl`,
          body(entries, `${RUN_DIR}/artifacts.jsonl`).replace(`"runId":"${RUN}"`, '"runId":"run-other"'),
        ),
      ),
  },
  {
    name: 'an unreadable records line',
    code: 'invalid_records',
    make: (entries) =>
      relist(
        replaceBody(
          entries,
          `${RUN_DIR}/artifacts.jsonl`,
          `{"x":1}\n${body(entries, `${RUN_DIR}/artifacts.jsonl`)}`,
        ),
      ),
  },
  {
    name: 'a truncated gzip',
    code: 'not_a_bundle',
    make: (_entries, good) => good.subarray(0, Math.floor(good.length / 2)),
  },
  {
    name: 'a corrupt gzip',
    code: 'not_a_bundle',
    make: (_entries, good) => {
      const bytes = Buffer.from(good);
      for (let index = 20; index < bytes.length - 8; index += 7) bytes[index] = (bytes[index] ?? 0) ^ 0xa5;
      return bytes;
    },
  },
  { name: 'a tar that is not gzipped', code: 'not_a_bundle', make: (entries) => rawTar(entries) },
  { name: 'a gzip inside the gzip', code: 'not_a_bundle', make: (_entries, good) => gzipSync(good) },
  { name: 'an empty file', code: 'not_a_bundle', make: () => Buffer.alloc(0) },
  {
    name: 'text that is not an archive',
    code: 'not_a_bundle',
    make: () => Buffer.from('hello, not a bundle\n'),
  },
  { name: 'an archive larger than maxBytes', code: 'too_large', make: (entries) => entries, maxBytes: 4096 },
];

describe('importBundle refuses hostile bundles and writes nothing', () => {
  it.each(hostile)('refuses $name with $code', async ({ code, make, maxBytes }) => {
    const { file } = await sharedBundle();
    const good = await readFile(file);
    const made = make(await readTarEntries(file), good);
    const hostileFile = path.join(await tempProject(), 'hostile.tar.gz');
    await writeFile(hostileFile, Buffer.isBuffer(made) ? made : gzipTar(made));
    // A project with history of its own: a refusal must leave every byte of it, .agent/ included, as it was.
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    await recordRun(target, 'run-earlier', { startAt: '2026-01-01T00:00:00.000Z' });
    const before = await treeDigest(target);
    const error = await refusal(
      importBundle(target, hostileFile, maxBytes === undefined ? {} : { maxBytes }),
    );
    expect(error.code).toBe(code);
    expect(error.message.length).toBeGreaterThan(20);
    expect(await treeDigest(target)).toBe(before);
  });

  it('refuses into an empty project without creating .agent/', async () => {
    const { file } = await sharedBundle();
    const hostileFile = path.join(await tempProject(), 'hostile.tar.gz');
    await writeFile(
      hostileFile,
      gzipTar([...(await readTarEntries(file)), { path: '../../evil', body: 'x' }]),
    );
    const target = await tempProject();
    const error = await refusal(importBundle(target, hostileFile));
    expect(error).toMatchObject({ code: 'unsafe_path', entry: '../../evil' });
    expect(await readdir(target)).toEqual([]);
  });

  it('refuses a bundle file that does not exist as not_a_bundle', async () => {
    const target = await tempProject();
    const error = await refusal(importBundle(target, path.join(target, 'nope.tar.gz')));
    expect(error.code).toBe('not_a_bundle');
    expect(error.message).toMatch(/ENOENT/);
  });
});

const MIB = 1024 * 1024;

describe('importBundle bounds what a bundle expands to', () => {
  /** Imports `entries` into a project with a run of its own; expects a refusal that changed no byte of it. */
  async function refusedUntouched(
    entries: RawEntry[],
    options: Parameters<typeof importBundle>[2] = {},
  ): Promise<BundleError> {
    const hostileFile = path.join(await tempProject(), 'hostile.tar.gz');
    await writeFile(hostileFile, gzipTar(entries));
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    await recordRun(target, 'run-earlier', { startAt: '2026-01-01T00:00:00.000Z' });
    const before = await treeDigest(target);
    const error = await refusal(importBundle(target, hostileFile, options));
    expect(await treeDigest(target)).toBe(before);
    return error;
  }

  it.each([
    // [what, the entry whose header lies, the per-entry limit it passes]
    ['an object', objectPathOf('ab'.repeat(32)), 'maxObjectBytes (--max-object-bytes) of 16777216'],
    ['a run file', `${RUN_DIR}/events.jsonl`, 'maxFileBytes (--max-file-bytes) of 67108864'],
  ])(
    'refuses %s whose header claims 900 MiB from the header alone, before reading a byte of its body',
    async (_what, entryPath, limit) => {
      const { file } = await sharedBundle();
      const entries = (await readTarEntries(file)).filter((entry) => entry.path !== entryPath);
      // No body follows: reading one would end in a truncated archive (not_a_bundle), not too_large.
      const error = await refusedUntouched([...entries, { path: entryPath, size: 900 * MIB, body: '' }]);
      expect(error).toMatchObject({ code: 'too_large', entry: entryPath });
      expect(error.message).toBe(
        `entry ${JSON.stringify(entryPath)} is ${String(900 * MIB)} bytes, over ${limit}; nothing was written. Raise the limit if you trust the bundle`,
      );
    },
  );

  it('refuses entries each under their limit whose total passes maxBytes, before the last one is read', async () => {
    const { file } = await sharedBundle();
    const good = await readTarEntries(file);
    const goodBytes = good.reduce((sum, entry) => sum + Buffer.byteLength(entry.body ?? ''), 0);
    const extra = [1, 2].map((seed): RawEntry => {
      const bytes = Buffer.alloc(600 * 1024, seed);
      return { path: objectPathOf(sha256(bytes)), body: bytes };
    });
    const error = await refusedUntouched([...good, ...extra], {
      maxBytes: goodBytes + MIB,
      maxObjectBytes: MIB,
    });
    expect(error).toMatchObject({ code: 'too_large', entry: extra[1]?.path });
    expect(error.message).toContain("takes the bundle's entries to");
    expect(error.message).toContain(`over maxBytes (--max-bytes) of ${String(goodBytes + MIB)}`);
  });

  it('refuses an object over maxObjectBytes that the bundle does hold', async () => {
    const { file } = await sharedBundle();
    const bytes = Buffer.alloc(2 * MIB, 7);
    const entry = { path: objectPathOf(sha256(bytes)), body: bytes };
    const error = await refusedUntouched([...(await readTarEntries(file)), entry], { maxObjectBytes: MIB });
    expect(error).toMatchObject({ code: 'too_large', entry: entry.path });
  });
});

/** Every file the store keeps below `folder`, as key -> bytes (hex), walked through `list`. */
async function storedFiles(store: ProjectStore, folder: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await store.list(folder)) {
    const key = `${folder}/${entry.name}`;
    if (entry.kind === 'folder') Object.assign(files, await storedFiles(store, key));
    else files[key] = Buffer.from((await store.read(key)) ?? []).toString('hex');
  }
  return files;
}

describe('bundleRun and importBundle on any store', () => {
  /** A run recorded on a memory store, bundled into a file; returns the project and the bundle. */
  async function memoryBundle(): Promise<{ source: Project; file: string }> {
    const source = openProject(await tempProject(), { store: createMemoryStore() });
    await recordRun(source, RUN);
    const file = path.join(await tempProject(), 'run.tar.gz');
    await bundleRun(source, RUN, file, { now: () => new Date('2026-02-25T08:00:00.000Z') });
    return { source, file };
  }

  it('bundles a run kept in memory and imports it into another memory store: files, objects, records, index', async () => {
    const { source, file } = await memoryBundle();
    // Nothing of the memory store reached the disk: the project folder holds no .agent/.
    expect(await readdir(source.dir)).toEqual([]);
    const target = openProject(await tempProject(), { store: createMemoryStore() });
    expect(await importBundle(target, file)).toEqual({
      runId: RUN,
      files: 5,
      objects: 8,
      objectsStored: 8,
      alreadyImported: false,
    });
    expect(await storedFiles(target.store, RUN_DIR)).toEqual(await storedFiles(source.store, RUN_DIR));
    expect(await storedFiles(target.store, '.agent/objects')).toEqual(
      await storedFiles(source.store, '.agent/objects'),
    );
    const records = await readArtifactRecords(source, RUN);
    expect(await readArtifactRecords(target, RUN)).toEqual(records);
    const paths = [...new Set(records.records.filter((r) => r.type !== 'trace').map((r) => r.path))];
    for (const versionPath of paths) {
      expect((await readPathVersions(target, versionPath)).records).toEqual(
        (await readPathVersions(source, versionPath)).records,
      );
    }
    expect(await readdir(target.dir)).toEqual([]);
    // Imported again: nothing changes, and the run is reported as already there.
    const before = await storedFiles(target.store, '.agent');
    expect(await importBundle(target, file)).toMatchObject({ alreadyImported: true, objectsStored: 0 });
    expect(await storedFiles(target.store, '.agent')).toEqual(before);
  });

  it('imports a bundle of a memory run into a project folder byte for byte, whose bundle is the same archive bytes', async () => {
    const { source, file } = await memoryBundle();
    const folder = await tempProject();
    await importBundle(folder, file);
    const onDisk = await folderFiles(path.join(folder, RUN_DIR));
    const inMemory = await storedFiles(source.store, RUN_DIR);
    expect(
      Object.fromEntries(Object.entries(onDisk).map(([name, hex]) => [`${RUN_DIR}/${name}`, hex])),
    ).toEqual(inMemory);
    // Bundled again from the folder, the same run makes the same archive bytes as from memory.
    const again = path.join(await tempProject(), 'again.tar.gz');
    await bundleRun(folder, RUN, again, { now: () => new Date('2026-02-25T08:00:00.000Z') });
    expect((await readFile(again)).equals(await readFile(file))).toBe(true);
    const files = openProject(folder);
    expect(await readArtifactRecords(files, RUN)).toEqual(await readArtifactRecords(source, RUN));
  });

  it('refuses a memory run whose object is missing, and an import over a different run, changing nothing', async () => {
    const { source, file } = await memoryBundle();
    const { records } = await readArtifactRecords(source, RUN);
    const hex = records[0]!.contentHash.slice('sha256:'.length);
    const target = openProject(await tempProject(), { store: createMemoryStore() });
    await recordRun(target, RUN, { apiText: 'export const api = "theirs";\n' });
    const before = await storedFiles(target.store, '.agent');
    expect((await refusal(importBundle(target, file))).code).toBe('run_exists');
    expect(await storedFiles(target.store, '.agent')).toEqual(before);

    expect(await source.store.remove(objectPathOf(hex))).toBe(true);
    const out = await tempProject();
    const error = await refusal(bundleRun(source, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'missing_object', entry: records[0]!.contentHash });
    expect(await readdir(out)).toEqual([]);
  });

  it('keeps no part of a run whose bundle changed between the two passes, on a memory store too', async () => {
    const { file } = await memoryBundle();
    const entries = await readTarEntries(file);
    const changed = replaceBody(entries, `${RUN_DIR}/state.json`, '{"status":"completed"}\n');
    const memory = createMemoryStore();
    let swapped = false;
    // The first call after the first pass (the check of .agent) swaps the bundle file for a changed one.
    const store: ProjectStore = {
      ...memory,
      list: async (folder) => {
        if (!swapped) {
          swapped = true;
          await writeFile(file, gzipTar(changed));
        }
        return memory.list(folder);
      },
    };
    const target = openProject(await tempProject(), { store });
    const error = await refusal(importBundle(target, file));
    expect(error).toMatchObject({ code: 'hash_mismatch', entry: `${RUN_DIR}/state.json` });
    expect(error.message).toContain('changed while it was imported');
    expect(swapped).toBe(true);
    // The run files before state.json were written aside, never put in place.
    expect(await memory.list('.agent/runs')).toEqual([]);
  });
});
