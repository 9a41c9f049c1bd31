import { realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { judgeArtefactPath } from '../../../src/workflow/observe/judge-artefact-path.js';
import { tempProject } from '../../helpers/temp-project.js';

async function rootOf(projectDir: string): Promise<{ given: string; real: string }> {
  return { given: projectDir, real: await realpath(projectDir) };
}

describe('judgeArtefactPath', () => {
  it('hands back the project-relative path and an open handle on the very file', async () => {
    const projectDir = await tempProject({ 'src/deep/a.ts': 'a\n' });
    const verdict = await judgeArtefactPath(await rootOf(projectDir), path.join(projectDir, 'src/deep/a.ts'));
    if (!verdict.ok) throw new Error(verdict.message);
    try {
      expect(verdict.path).toBe('src/deep/a.ts');
      expect(await verdict.handle.readFile('utf8')).toBe('a\n');
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
