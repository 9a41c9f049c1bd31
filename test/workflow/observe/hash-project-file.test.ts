import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/project/index.js';
import { hashProjectFile } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('hashProjectFile', () => {
  it('hashes a file larger than one read chunk', async () => {
    const big = 'x'.repeat(200_000);
    const projectDir = await tempProject({ 'big.txt': big });
    expect(await hashProjectFile(path.join(projectDir, 'big.txt'), 'file')).toBe(sha256Hex(big));
  });

  it('hashes a symlink by its text and refuses to read through it as a file', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n' });
    await symlink('a.txt', path.join(projectDir, 'link'));
    expect(await hashProjectFile(path.join(projectDir, 'link'), 'symlink')).toBe(sha256Hex('a.txt'));
    await expect(hashProjectFile(path.join(projectDir, 'link'), 'file')).rejects.toMatchObject({
      code: 'ELOOP',
    });
  });
});
