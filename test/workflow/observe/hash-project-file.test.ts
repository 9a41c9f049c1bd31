import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/project/index.js';
import { hashProjectFile } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('hashProjectFile', () => {
  it.each([
    ['a small file, read whole', 200_000],
    ['a file over 1 MiB, streamed', 3_000_000],
  ])('hashes %s', async (_name, size) => {
    const text = 'x'.repeat(size);
    const projectDir = await tempProject({ 'big.txt': text });
    expect(await hashProjectFile(path.join(projectDir, 'big.txt'), 'file', size)).toBe(sha256Hex(text));
  });

  it('hashes a symlink by its text and refuses to read through it as a file', async () => {
    const projectDir = await tempProject({ 'a.txt': 'a\n' });
    await symlink('a.txt', path.join(projectDir, 'link'));
    expect(await hashProjectFile(path.join(projectDir, 'link'), 'symlink', 5)).toBe(sha256Hex('a.txt'));
    await expect(hashProjectFile(path.join(projectDir, 'link'), 'file', 5)).rejects.toMatchObject({
      code: 'ELOOP',
    });
  });
});
