import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCheckoutTarget } from '../../../src/artifacts/lineage/check-checkout-target.js';
import { LineageError } from '../../../src/artifacts/lineage/lineage-error.js';
import { tempProject } from '../../helpers/temp-project.js';

async function verdictOf(projectDir: string, to: string): Promise<string> {
  try {
    await checkCheckoutTarget(projectDir, to);
    return 'ok';
  } catch (error) {
    if (error instanceof LineageError) return error.code;
    throw error;
  }
}

describe('checkCheckoutTarget', () => {
  // Each row: a target relative to the project (or '../../' for a sibling), and the verdict.
  it.each([
    ['', 'target_inside_project'],
    ['workspace', 'target_inside_project'],
    ['workspace/', 'target_inside_project'],
    ['workspace/src/new', 'target_inside_project'],
    ['.agent', 'target_inside_project'],
    ['.agent/objects/new', 'target_inside_project'],
    ['workspace/../.agent/x', 'target_inside_project'],
    ['checkouts/new', 'ok'],
    ['workspace-old', 'ok'],
    ['..workspace', 'ok'],
    ['../../sibling', 'ok'],
    ['empty', 'ok'],
    ['full', 'target_not_empty'],
    ['file.txt', 'target_not_empty'],
  ])('judges %j as %s', async (relative, verdict) => {
    const projectDir = await tempProject({
      'workspace/src/a.ts': 'a',
      '.agent/objects/.keep': '',
      'full/keep.txt': 'keep',
      'file.txt': 'keep',
    });
    await mkdir(path.join(projectDir, 'empty'));
    expect(await verdictOf(projectDir, path.join(projectDir, relative))).toBe(verdict);
  });

  it('refuses a target reached through a symlink into the workspace', async () => {
    const projectDir = await tempProject({ 'workspace/a.ts': 'a' });
    const outside = await tempProject();
    await symlink(path.join(projectDir, 'workspace'), path.join(outside, 'link'));
    expect(await verdictOf(projectDir, path.join(outside, 'link'))).toBe('target_inside_project');
    expect(await verdictOf(projectDir, path.join(outside, 'link', 'deeper', 'new'))).toBe(
      'target_inside_project',
    );
  });

  it('refuses any target inside a workspace/ that is itself a symlink to another folder', async () => {
    const projectDir = await tempProject();
    const elsewhere = await tempProject({ 'real-workspace/a.ts': 'a' });
    await symlink(path.join(elsewhere, 'real-workspace'), path.join(projectDir, 'workspace'));
    expect(await verdictOf(projectDir, path.join(elsewhere, 'real-workspace', 'new'))).toBe(
      'target_inside_project',
    );
  });

  it('refuses a dangling symlink as not empty, and creates nothing', async () => {
    const projectDir = await tempProject();
    const outside = await tempProject();
    await symlink(path.join(outside, 'nowhere'), path.join(outside, 'dangling'));
    expect(await verdictOf(projectDir, path.join(outside, 'dangling'))).toBe('target_not_empty');
    expect((await readdir(outside)).sort()).toEqual(['dangling']);
  });

  it('says what to do in its messages', async () => {
    const projectDir = await tempProject({ 'full/keep.txt': 'keep' });
    await writeFile(path.join(projectDir, 'full', 'more.txt'), 'more');
    await expect(checkCheckoutTarget(projectDir, path.join(projectDir, 'full'))).rejects.toThrow(
      'holds 2 entries; check out into a new or empty folder',
    );
    await expect(checkCheckoutTarget(projectDir, path.join(projectDir, 'workspace'))).rejects.toThrow(
      'pick a folder outside them',
    );
  });
});
