import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  findStaleTemps,
  findTornFiles,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import { hostilePaths, HOSTILE_PATH_FAMILIES } from './hostile-paths.js';

describe('the stress counts find each planted problem', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'artifact-ingest-stress-count-'));
    await mkdir(path.join(root, 'project/workspace/s'), { recursive: true });
    await mkdir(path.join(root, 'project/.agent/runs/r1'), { recursive: true });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('finds a torn file, and not an intact one or an absent one', async () => {
    const allowed = new Map([
      ['s/a.txt', new Set([sha256Of('old\n'), sha256Of('new\n')])],
      ['s/b.txt', new Set([sha256Of('new\n')])],
      ['s/gone.txt', new Set([sha256Of('new\n')])],
    ]);
    await writeFile(path.join(root, 'project/workspace/s/a.txt'), 'old\n');
    await writeFile(path.join(root, 'project/workspace/s/b.txt'), 'ne');
    expect(await findTornFiles(path.join(root, 'project/workspace'), allowed)).toEqual(['s/b.txt']);
  });

  it('finds an escape outside the allowed folders, a symlink included, and nothing inside them', async () => {
    const before = await snapshotTree(root);
    await writeFile(path.join(root, 'project/workspace/s/inside.txt'), 'in');
    await writeFile(path.join(root, 'escaped.txt'), 'out');
    await symlink('/etc', path.join(root, 'project/planted'));
    const after = await snapshotTree(root);
    expect(findEscapes(before, after, ['project/workspace', 'project/.agent']).sort()).toEqual([
      'escaped.txt',
      'project/planted',
    ]);
  });

  it.each([
    ['a torn last line', '{"a":1}\n{"b":', 1],
    ['a line joined to a torn one', '{"a":1}\n{"b":{"c":1}\n', 1],
    ['a line that is JSON but not an object', '{"a":1}\n42\n', 1],
    ['intact lines', '{"a":1}\n{"b":2}\n', 0],
    ['an empty file', '', 0],
  ])('counts unreadable record lines: %s', async (_name, text, expected) => {
    await writeFile(path.join(root, 'project/.agent/runs/r1/events.jsonl'), text);
    await writeFile(path.join(root, 'project/.agent/runs/r1/artifacts.jsonl'), text);
    expect(await countUnreadableRecordLines(path.join(root, 'project'))).toBe(expected * 2);
  });

  it("finds the writer's temp files, and not look-alikes", async () => {
    await writeFile(path.join(root, 'project/workspace/s/.artifact-ingest-0123456789abcdef.tmp'), '');
    await writeFile(path.join(root, 'project/workspace/s/.artifact-ingest-notatemp.tmp'), '');
    expect(findStaleTemps(await snapshotTree(path.join(root, 'project')))).toEqual([
      'workspace/s/.artifact-ingest-0123456789abcdef.tmp',
    ]);
  });

  it.each([
    ['errors in the report', '{"errors":3,"warnings":1}', 3],
    ['a clean report', '{"errors":0,"warnings":2}', 0],
    ['output that is not a report', 'Error: boom', 1],
  ])('counts drift from verify --json: %s', (_name, output, expected) => {
    expect(countDrift(output)).toBe(expected);
  });

  it('draws hostile paths from every family, the same ones for the same seed', () => {
    const paths = hostilePaths(2000);
    expect(paths).toEqual(hostilePaths(2000));
    expect(new Set(paths.map((entry) => entry.replace(/\d+/gu, 'N'))).size).toBe(HOSTILE_PATH_FAMILIES);
  });
});
