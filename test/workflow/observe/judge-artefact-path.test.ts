import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { judgeArtefactPath } from '../../../src/workflow/observe/judge-artefact-path.js';
import type { ProjectRoot } from '../../../src/workflow/observe/judge-artefact-path.js';
import { openConfinedRoot } from '../../../src/workspace/index.js';
import type { ConfinedRoot } from '../../../src/workspace/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const opened: ConfinedRoot[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((root) => root.close()));
});

async function rootOf(projectDir: string): Promise<ProjectRoot> {
  const files = await openConfinedRoot(projectDir);
  opened.push(files);
  return { given: projectDir, real: files.realPath, files };
}

describe('judgeArtefactPath', () => {
  it('hands back the project-relative path and an open handle on the very file', async () => {
    const projectDir = await tempProject({ 'src/deep/a.ts': 'a\n' });
    const verdict = await judgeArtefactPath(await rootOf(projectDir), path.join(projectDir, 'src/deep/a.ts'));
    if (!verdict.ok) throw new Error(verdict.message);
    try {
      expect(verdict.path).toBe('src/deep/a.ts');
      expect((await verdict.handle.readFile()).toString('utf8')).toBe('a\n');
    } finally {
      await verdict.handle.close();
    }
  });

  it.each([
    ['a link to a file inside', 'inside-link.ts', 'symlink'],
    ['a dangling link', 'dangling.ts', 'symlink'],
    ['a file under a linked folder', 'dir-link/a.ts', 'symlink'],
  ])('refuses %s without following it', async (_name, raw, code) => {
    const projectDir = await tempProject({ 'src/a.ts': 'a\n' });
    await symlink('src/a.ts', path.join(projectDir, 'inside-link.ts'));
    await symlink('nowhere.ts', path.join(projectDir, 'dangling.ts'));
    await symlink('src', path.join(projectDir, 'dir-link'));
    const verdict = await judgeArtefactPath(await rootOf(projectDir), raw);
    expect(verdict).toMatchObject({ ok: false, code });
  });
});
