import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentHashOf } from '../../src/artifacts/content-hash.js';
import { gzipTar, readTarEntries } from '../helpers/raw-tar.js';
import type { RawEntry } from '../helpers/raw-tar.js';
import { recordRun } from '../helpers/recorded-run.js';
import { spawnCli } from '../helpers/run-cli.js';
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

describe('records that point outside the project', () => {
  it('import refuses a bundle whose record points outside, exit 1, and writes nothing', async () => {
    const source = await tempProject();
    await recordRun(source, RUN);
    const file = path.join(await tempProject(), 'run.tar.gz');
    expect((await spawnCli(['bundle', RUN, '-o', file, '--project', source])).code).toBe(0);
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
});
