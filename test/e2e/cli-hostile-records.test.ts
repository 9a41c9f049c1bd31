import { cp, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHashOf } from '../../src/store/content-hash.js';
import { openObjectStore } from '../../src/store/object-store.js';
import { gzipTar, readTarEntries } from '../helpers/raw-tar.js';
import type { RawEntry } from '../helpers/raw-tar.js';
import { recordRun } from '../helpers/recorded-run.js';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { createHash } from 'node:crypto';

const RUN = 'run-hostile';
const RECORDS = `.agent/runs/${RUN}/artifacts.jsonl`;
// Deep enough to reach / from any temp project; the guess is the real file's content, as an oracle would use.
const OUTSIDE = 'workspace/../../../../../../../../etc/hostname';

/** Points the first file record of `text` (an artifacts.jsonl) at `recorded`, hashing the outside file's bytes. */
async function pointOutside(text: string, recorded: string): Promise<string> {
  const guess = await readFile('/etc/hostname').catch(() => Buffer.from('localhost\n'));
  const lines = text.trimEnd().split('\n');
  const index = lines.findIndex((line) => line.includes('"type":"file"'));
  const record = JSON.parse(lines[index] ?? '') as Record<string, unknown>;
  lines[index] = JSON.stringify({ ...record, path: recorded, contentHash: contentHashOf(guess) });
  return `${lines.join('\n')}\n`;
}

/**
 * A project whose run verifies clean (its workspace checked out of its own records), then one record pointed at
 * `recorded` with the outside file's hash, the guessed object stored and the indexes rebuilt: what an import of
 * such a bundle left before imports judged record paths. The set-up runs the CLI in this process; the commands
 * under test run in a child.
 */
async function plantedProject(
  recorded: string,
  before?: (project: string) => Promise<void>,
): Promise<string> {
  const project = await tempProject();
  await recordRun(project, RUN);
  const out = path.join(await tempProject(), 'ws');
  expect(
    (await runCli(['checkout', '--at', '2030-01-01T00:00:00Z', '--to', out, '--project', project])).code,
  ).toBe(0);
  await cp(out, path.join(project, 'workspace'), { recursive: true });
  // Clean before the plant, so the exit 1 below is the hostile record's alone.
  expect((await runCli(['verify', RUN, '--project', project])).code).toBe(0);
  await before?.(project);
  const file = path.join(project, RECORDS);
  await writeFile(file, await pointOutside(await readFile(file, 'utf8'), recorded));
  const store = await openObjectStore(project);
  await store.put(await readFile('/etc/hostname').catch(() => Buffer.from('localhost\n')));
  await store.close();
  expect((await runCli(['reindex', '--project', project])).code).toBe(0);
  return project;
}

describe('records that point outside the project', () => {
  it('import refuses a bundle whose record points outside, exit 1, and writes nothing', async () => {
    const source = await tempProject();
    await recordRun(source, RUN);
    const file = path.join(await tempProject(), 'run.tar.gz');
    // Set-up in this process; the import under test runs in a child.
    expect((await runCli(['bundle', RUN, '-o', file, '--project', source])).code).toBe(0);
    const entries = await readTarEntries(file);
    const records = await pointOutside(
      String(entries.find((entry) => entry.path === RECORDS)?.body),
      OUTSIDE,
    );
    const guessHash = contentHashOf(await readFile('/etc/hostname').catch(() => Buffer.from('localhost\n')));
    // A consistent bundle: the records, bundle.json's file list and objects, and the guessed object all agree.
    const manifest = JSON.parse(String(entries[0]?.body)) as {
      files: { path: string; sha256: string; bytes: number }[];
      objects: string[];
    };
    manifest.files = manifest.files.map((listed) =>
      listed.path === RECORDS
        ? {
            path: RECORDS,
            sha256: createHash('sha256').update(records).digest('hex'),
            bytes: Buffer.byteLength(records),
          }
        : listed,
    );
    const referenced = new Set(
      records
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { contentHash: string }).contentHash),
    );
    manifest.objects = [...referenced].sort();
    const hex = guessHash.slice('sha256:'.length);
    const guessed: RawEntry = {
      path: `.agent/objects/sha256/${hex.slice(0, 2)}/${hex.slice(2)}`,
      body: await readFile('/etc/hostname').catch(() => Buffer.from('localhost\n')),
    };
    const hostile = path.join(path.dirname(file), 'hostile.tar.gz');
    await writeFile(
      hostile,
      gzipTar([
        { ...entries[0]!, body: JSON.stringify(manifest) },
        ...entries
          .slice(1)
          .filter(
            (entry) =>
              !entry.path.startsWith('.agent/objects/') ||
              referenced.has(`sha256:${entry.path.split('/').slice(-2).join('')}`),
          )
          .map((entry) => (entry.path === RECORDS ? { ...entry, body: records } : entry)),
        ...(entries.some((entry) => entry.path === guessed.path) ? [] : [guessed]),
      ]),
    );
    const target = await tempProject({ 'workspace/keep.ts': 'export {};\n' });
    const before = await treeDigest(target);
    const result = await spawnCli(['import', hostile, '--project', target]);
    expect(result.stderr).toMatch(
      /^artifact-ingest: import refused: unsafe_record_path: record art-[0-9a-f]{12} \(file of node build\)/,
    );
    expect(result.stderr).toContain('traversal');
    expect(result.code).toBe(1);
    expect(await treeDigest(target)).toBe(before);
  });

  it('verify and checkout refuse such a record already on disk, exit 1, without reading the outside file', async () => {
    const project = await plantedProject(OUTSIDE);
    const verify = await spawnCli(['verify', RUN, '--project', project, '--json']);
    // Before: the guessed hash matched the outside file and verify passed, exit 0 (an oracle).
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout) as { problems: { code: string; path?: string }[] };
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'unsafe_record_path', path: OUTSIDE }),
    );
    // --step reads the run's own records; --at reads the indexes, which reindex (or an old import) filled from them.
    for (const cut of [
      ['--step', '2', '--run', RUN],
      ['--at', '2030-01-01T00:00:00Z'],
    ]) {
      const to = path.join(await tempProject(), 'out');
      const checkout = await spawnCli(['checkout', ...cut, '--to', to, '--project', project]);
      expect(checkout.stderr).not.toMatch(/internal error/);
      expect(checkout.stderr).toMatch(
        /^artifact-ingest: unsafe_record_path: record art-[0-9a-f]{12} \(file of run run-hostile, node build\) has the path/,
      );
      expect(checkout.stderr).toContain('nothing was written');
      expect(checkout.code).toBe(1);
      await expect(readFile(to)).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });

  it('verify never hashes an outside file through a real symlink below workspace/, a path the rules accept', async () => {
    const project = await plantedProject('workspace/linked/hostname', (dir) =>
      symlink('/etc', path.join(dir, 'workspace/linked')),
    );
    const verify = await spawnCli(['verify', RUN, '--project', project, '--json']);
    const report = JSON.parse(verify.stdout) as { problems: { code: string; path?: string }[] };
    // Were the link followed, the guessed hash would match /etc/hostname and verify would pass (an oracle).
    expect(report.problems).toContainEqual(
      expect.objectContaining({ code: 'workspace_not_a_file', path: 'workspace/linked/hostname' }),
    );
    expect(verify.code).toBe(1);
  });
});
