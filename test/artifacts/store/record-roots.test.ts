import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openRecordRoots } from '../../../src/artifacts/store/record-roots.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('openRecordRoots', () => {
  it('appends to run files, index files and other project files at their project paths', async () => {
    const project = await tempProject();
    const roots = await openRecordRoots(project);
    try {
      await roots.append('.agent/runs/run-001/artifacts.jsonl', 'a\n', 'none');
      await roots.append('.agent/runs/run-001/artifacts.jsonl', 'b\n', 'fsync');
      await roots.append('.agent/index/paths/ab/cd.jsonl', 'c\n', 'none');
      await roots.append('.agent/other.jsonl', 'd\n', 'none');
    } finally {
      await roots.close();
    }
    expect(await readFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), 'utf8')).toBe('a\nb\n');
    expect(await readFile(join(project, '.agent/index/paths/ab/cd.jsonl'), 'utf8')).toBe('c\n');
    expect(await readFile(join(project, '.agent/other.jsonl'), 'utf8')).toBe('d\n');
  });

  it.each([
    ['the index folder', '.agent/index', '.agent/index/paths/ab/cd.jsonl'],
    ['a run folder', '.agent/runs/run-001', '.agent/runs/run-001/artifacts.jsonl'],
  ])('refuses %s planted as a symlink out of the project, writing nothing there', async (_, link, file) => {
    const project = await tempProject();
    const outside = await mkdtemp(join(tmpdir(), 'ai-outside-'));
    try {
      await mkdir(join(project, link, '..'), { recursive: true });
      await symlink(outside, join(project, link));
      const roots = await openRecordRoots(project);
      try {
        await expect(roots.append(file, 'x\n', 'none')).rejects.toThrow(/symlink/);
      } finally {
        await roots.close();
      }
      expect(await readdir(outside)).toEqual([]);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('opens a run folder again after it was removed while kept open', async () => {
    const project = await tempProject();
    const roots = await openRecordRoots(project);
    try {
      await roots.append('.agent/runs/run-001/artifacts.jsonl', 'a\n', 'none');
      await rm(join(project, '.agent/runs/run-001'), { recursive: true });
      await expect(roots.append('.agent/runs/run-001/artifacts.jsonl', 'b\n', 'none')).rejects.toThrow();
      await roots.append('.agent/runs/run-001/artifacts.jsonl', 'c\n', 'none');
    } finally {
      await roots.close();
    }
    expect(await readFile(join(project, '.agent/runs/run-001/artifacts.jsonl'), 'utf8')).toBe('c\n');
  });
});
