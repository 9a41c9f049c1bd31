import { constants } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/project/index.js';
import { hashProjectFile } from '../../../src/workflow/index.js';
import { quickFs } from '../../../src/workspace/index.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('hashProjectFile', () => {
  it.each([
    ['a small file, read whole', 200_000],
    ['a file over 1 MiB, read in chunks', 3_000_000],
  ])('hashes %s from its descriptor', async (_name, size) => {
    const text = 'x'.repeat(size);
    const projectDir = await tempProject({ 'big.txt': text });
    const handle = await quickFs.open(path.join(projectDir, 'big.txt'), constants.O_RDONLY);
    try {
      expect(await hashProjectFile({ kind: 'file', path: 'big.txt', handle, size })).toBe(sha256Hex(text));
    } finally {
      await handle.close();
    }
  });

  it('hashes a symlink by its text', async () => {
    expect(await hashProjectFile({ kind: 'symlink', path: 'link', text: 'a.txt' })).toBe(sha256Hex('a.txt'));
  });
});
