import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, link, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BundleError } from '../../../src/artifacts/bundle/bundle-error.js';
import { bundleManifestSchema } from '../../../src/artifacts/bundle/bundle-manifest.js';
import { bundleRun } from '../../../src/artifacts/bundle/bundle-run.js';
import { patchFileHandleWrite } from '../../helpers/patch-file-handle-write.js';
import { readTarEntries } from '../../helpers/raw-tar.js';
import { recordRun } from '../../helpers/recorded-run.js';
import { tempProject } from '../../helpers/temp-project.js';
import { UnknownRunError } from '../../../src/project/index.js';

const RUN = 'run-2026-02-24';
const fixedNow = (): Date => new Date('2026-02-25T08:00:00.000Z');
const sha256 = (bytes: Uint8Array | string): string => createHash('sha256').update(bytes).digest('hex');

/** A project with one recorded run, and an empty folder for bundles outside it. */
async function recordedProject(): Promise<{ project: string; out: string }> {
  const project = await tempProject();
  await recordRun(project, RUN);
  return { project, out: await tempProject() };
}

async function refusal(promise: Promise<unknown>): Promise<BundleError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(BundleError);
  return error as BundleError;
}

describe('bundleRun', () => {
  it('packs bundle.json first, then the run folder, then every referenced object, and summarises it', async () => {
    const { project, out } = await recordedProject();
    const file = path.join(out, 'run.tar.gz');
    const summary = await bundleRun(project, RUN, file, { now: fixedNow });
    const entries = await readTarEntries(file);
    const objects = entries.filter((entry) => entry.path.startsWith('.agent/objects/'));
    expect(entries.map((entry) => `${entry.type ?? ''} ${entry.path}`).slice(0, 8)).toEqual([
      'File .agent/bundle.json',
      `Directory .agent/runs/${RUN}/`,
      `Directory .agent/runs/${RUN}/manifests/`,
      `File .agent/runs/${RUN}/artifacts.jsonl`,
      `File .agent/runs/${RUN}/events.jsonl`,
      `File .agent/runs/${RUN}/manifests/build.json`,
      `File .agent/runs/${RUN}/manifests/plan.json`,
      `File .agent/runs/${RUN}/state.json`,
    ]);
    expect(entries.slice(8)).toEqual(objects);
    expect(summary).toEqual({
      file,
      runId: RUN,
      files: 5,
      objects: objects.length,
      bytes: (await readFile(file)).length,
    });
  });

  it('lists every run file with its sha256 and size, and every distinct object the records reference', async () => {
    const { project, out } = await recordedProject();
    const file = path.join(out, 'run.tar.gz');
    await bundleRun(project, RUN, file, { now: fixedNow });
    const entries = await readTarEntries(file);
    const manifest = bundleManifestSchema.parse(JSON.parse(String(entries[0]?.body)));
    const runFiles = entries.filter(
      (entry) => entry.type === 'File' && entry.path.startsWith('.agent/runs/'),
    );
    expect(manifest.runId).toBe(RUN);
    expect(manifest.createdAt).toBe('2026-02-25T08:00:00.000Z');
    expect(manifest.files).toEqual(
      runFiles.map((entry) => ({
        path: entry.path,
        sha256: sha256(entry.body as Uint8Array),
        bytes: (entry.body as Uint8Array).length,
      })),
    );
    const records = String(runFiles.find((entry) => entry.path.endsWith('artifacts.jsonl'))?.body)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { contentHash: string });
    expect(manifest.objects).toEqual([...new Set(records.map((record) => record.contentHash))].sort());
    for (const entry of entries.filter((candidate) => candidate.path.startsWith('.agent/objects/'))) {
      const name = entry.path.split('/').slice(-2).join('');
      expect(sha256(entry.body as Uint8Array)).toBe(name);
    }
  });

  it('writes the same bytes for the same run and clock (portable entries, fixed mtime)', async () => {
    const { project, out } = await recordedProject();
    await bundleRun(project, RUN, path.join(out, 'a.tar.gz'), { now: fixedNow });
    await bundleRun(project, RUN, path.join(out, 'b.tar.gz'), { now: fixedNow });
    expect(sha256(await readFile(path.join(out, 'a.tar.gz')))).toBe(
      sha256(await readFile(path.join(out, 'b.tar.gz'))),
    );
  });

  it('leaves out the run lock, a lock being taken over and temp files of interrupted writes', async () => {
    const { project, out } = await recordedProject();
    const runDir = path.join(project, '.agent', 'runs', RUN);
    await writeFile(path.join(runDir, 'lock'), '{"pid":1,"hostname":"h","started_at":"x"}\n');
    await writeFile(path.join(runDir, 'lock.stale-42-0a1b2c3d'), '');
    await writeFile(path.join(runDir, 'manifests', '.artifact-ingest-0123456789abcdef.tmp'), 'half');
    const file = path.join(out, 'run.tar.gz');
    const summary = await bundleRun(project, RUN, file);
    const paths = (await readTarEntries(file)).map((entry) => entry.path);
    expect(summary.files).toBe(5);
    expect(paths.some((entry) => /lock|\.tmp$/.test(entry))).toBe(false);
  });

  it('bundles a run without records as its files and no objects', async () => {
    const project = await tempProject({ [`.agent/runs/${RUN}/state.json`]: '{}\n' });
    const out = await tempProject();
    const summary = await bundleRun(project, RUN, path.join(out, 'run.tar.gz'));
    expect(summary).toMatchObject({ files: 1, objects: 0 });
  });

  it.each([
    ['a run that does not exist', 'run-missing'],
    ['a string that is not a run id', '../../runs'],
  ])('refuses %s with unknown_run and writes nothing', async (_name, runId) => {
    const { project, out } = await recordedProject();
    const error = await bundleRun(project, runId, path.join(out, 'run.tar.gz')).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UnknownRunError);
    expect((error as UnknownRunError).code).toBe('unknown_run');
    expect((error as UnknownRunError).message).toBe(
      `no run ${JSON.stringify(runId)} in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a symlink planted in the run folder, leaving no output and no temp file', async () => {
    const { project, out } = await recordedProject();
    await symlink('/etc/passwd', path.join(project, '.agent', 'runs', RUN, 'manifests', 'secret.json'));
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error.code).toBe('link_entry');
    expect(error.entry).toBe(`.agent/runs/${RUN}/manifests/secret.json`);
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a symlinked folder in the run folder', async () => {
    const { project, out } = await recordedProject();
    await symlink(project, path.join(project, '.agent', 'runs', RUN, 'escape'));
    expect((await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')))).code).toBe('link_entry');
  });

  it.skipIf(process.platform === 'win32')(
    'refuses a FIFO in the run folder without blocking on it',
    async () => {
      const { project, out } = await recordedProject();
      execFileSync('mkfifo', [path.join(project, '.agent', 'runs', RUN, 'pipe')]);
      const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
      expect(error.code).toBe('unsupported_entry');
      expect(await readdir(out)).toEqual([]);
    },
  );

  it('refuses a run file with a second name (a hard link), which the store never reads', async () => {
    const { project, out } = await recordedProject();
    const state = path.join(project, '.agent', 'runs', RUN, 'state.json');
    await link(state, path.join(out, 'state-elsewhere.json'));
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'unsupported_entry', entry: `.agent/runs/${RUN}/state.json` });
    expect(error.message).toContain('hard link');
    expect(await readdir(out)).toEqual(['state-elsewhere.json']);
  });

  it('refuses a listed run file whose name no store key spells', async () => {
    const { project, out } = await recordedProject();
    await writeFile(path.join(project, '.agent', 'runs', RUN, 'manifests', 'a b.json'), '{}\n');
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'unsafe_path', entry: `.agent/runs/${RUN}/manifests/a b.json` });
    expect(error.message).toContain('the store cannot read');
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a referenced object planted as a symlink, never following it, and creates no object store', async () => {
    const { project, out } = await recordedProject();
    const [first] = await objectFiles(project);
    const bytes = await readFile(first!);
    await writeFile(path.join(out, 'same-bytes'), bytes);
    await rm(first!, { force: true });
    await symlink(path.join(out, 'same-bytes'), first!);
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error.code).toBe('corrupt_object');
    expect(error.message).toContain('it is a symlink');

    await rm(path.join(project, '.agent', 'objects'), { recursive: true });
    expect((await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')))).code).toBe(
      'missing_object',
    );
    expect(await readdir(path.join(project, '.agent'))).not.toContain('objects');
  });

  it('refuses a run file whose name no import would accept', async () => {
    const { project, out } = await recordedProject();
    await writeFile(path.join(project, '.agent', 'runs', RUN, 'notes:1.md'), 'x');
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'unsafe_path', entry: `.agent/runs/${RUN}/notes:1.md` });
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a file a run folder never holds, as an import would', async () => {
    const { project, out } = await recordedProject();
    await writeFile(path.join(project, '.agent', 'runs', RUN, 'notes.md'), 'x');
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'unexpected_entry', entry: `.agent/runs/${RUN}/notes.md` });
    expect(error.message).toContain('move it out of the run folder');
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a referenced object that is missing from the store', async () => {
    const { project, out } = await recordedProject();
    const [first] = await objectFiles(project);
    await rm(first!, { force: true });
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error.code).toBe('missing_object');
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a referenced object whose bytes no longer match its hash', async () => {
    const { project, out } = await recordedProject();
    const [first] = await objectFiles(project);
    await chmod(first!, 0o644);
    await writeFile(first!, 'tampered');
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error.code).toBe('corrupt_object');
    expect(error.message).toMatch(/hash to sha256:/);
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses a run whose artifacts.jsonl has an unreadable line, but allows a truncated last line', async () => {
    const { project, out } = await recordedProject();
    const records = path.join(project, '.agent', 'runs', RUN, 'artifacts.jsonl');
    await writeFile(records, `${await readFile(records, 'utf8')}{"artifactId":"art-`);
    await expect(bundleRun(project, RUN, path.join(out, 'a.tar.gz'))).resolves.toMatchObject({ runId: RUN });
    await writeFile(records, `not json\n${await readFile(records, 'utf8')}`);
    expect(await refusal(bundleRun(project, RUN, path.join(out, 'b.tar.gz')))).toMatchObject({
      code: 'invalid_records',
      entry: `.agent/runs/${RUN}/artifacts.jsonl`,
      message: `line 1 of .agent/runs/${RUN}/artifacts.jsonl is not JSON; a run whose records cannot be read cannot be bundled or imported whole`,
    });
  });

  it('refuses with incomplete_bundle, leaving no output and the old file, when the file does not read back whole', async () => {
    const { project, out } = await recordedProject();
    const file = path.join(out, 'run.tar.gz');
    await writeFile(file, 'keep me');
    // A disk that acknowledges every write and keeps only the first half of it.
    const restore = await patchFileHandleWrite(
      (original) =>
        async function (buffer, offset = 0, length = buffer.length - offset) {
          await original.call(this, buffer, offset, Math.ceil(length / 2));
          return { bytesWritten: length, buffer };
        },
    );
    try {
      const error = await refusal(bundleRun(project, RUN, file, { force: true }));
      expect(error.code).toBe('incomplete_bundle');
      expect(error.message).toMatch(/did not read back whole.*check the disk/);
    } finally {
      restore();
    }
    expect(await readFile(file, 'utf8')).toBe('keep me');
    expect(await readdir(out)).toEqual(['run.tar.gz']);
  });

  it.each([
    ['workspace/../../../../etc/hostname', /traversal/],
    ['/etc/passwd', /is not below workspace\//],
    ['workspace/.git/hooks/pre-commit', /git_dir/],
  ])('refuses a run whose records hold the path %s, which no import would accept', async (bad, why) => {
    const { project, out } = await recordedProject();
    const records = path.join(project, '.agent', 'runs', RUN, 'artifacts.jsonl');
    const lines = (await readFile(records, 'utf8')).trimEnd().split('\n');
    const index = lines.findIndex((line) => line.includes('"type":"file"'));
    lines[index] = JSON.stringify({ ...(JSON.parse(lines[index]!) as object), path: bad });
    await writeFile(records, `${lines.join('\n')}\n`);
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'run.tar.gz')));
    expect(error).toMatchObject({ code: 'unsafe_record_path', entry: `.agent/runs/${RUN}/artifacts.jsonl` });
    expect(error.message).toMatch(why);
    expect(error.message).toContain('bundle again');
    expect(await readdir(out)).toEqual([]);
  });

  it('refuses to replace an existing file unless forced', async () => {
    const { project, out } = await recordedProject();
    const file = path.join(out, 'run.tar.gz');
    await writeFile(file, 'keep me');
    const error = await refusal(bundleRun(project, RUN, file));
    expect(error.code).toBe('output_exists');
    expect(error.message).toMatch(/--force/);
    expect(await readFile(file, 'utf8')).toBe('keep me');
    expect(await readdir(out)).toEqual(['run.tar.gz']);
    await bundleRun(project, RUN, file, { force: true });
    expect((await readTarEntries(file))[0]?.path).toBe('.agent/bundle.json');
  });

  it('refuses a folder as the output even when forced', async () => {
    const { project, out } = await recordedProject();
    await mkdir(path.join(out, 'taken.tar.gz'));
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'taken.tar.gz'), { force: true }));
    expect(error.code).toBe('output_exists');
  });

  it('refuses an output folder that does not exist with output_unwritable', async () => {
    const { project, out } = await recordedProject();
    const error = await refusal(bundleRun(project, RUN, path.join(out, 'missing', 'run.tar.gz')));
    expect(error.code).toBe('output_unwritable');
    expect(await readdir(out)).toEqual([]);
  });
});

async function objectFiles(project: string): Promise<string[]> {
  const entries = await readdir(path.join(project, '.agent', 'objects'), {
    recursive: true,
    withFileTypes: true,
  });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}
