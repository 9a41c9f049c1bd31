import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listJsonFiles } from '../../../src/report/model/list-json-files.js';
import { tempProject } from '../../helpers/temp-project.js';

describe('listJsonFiles', () => {
  it('lists the .json files of a folder, sorted, without folders or other files', async () => {
    const dir = await tempProject({ 'm/b.json': '{}', 'm/a.json': '{}', 'm/notes.txt': 'x' });
    await mkdir(path.join(dir, 'm', 'c.json'));
    expect(await listJsonFiles(dir, 'm')).toEqual({ names: ['a.json', 'b.json'] });
  });

  it.each([
    ['a missing folder', 'none'],
    ['a file where the folder should be', 'file.json'],
  ])('gives no names for %s', async (_case, folder) => {
    const dir = await tempProject({ 'file.json': '{}' });
    expect(await listJsonFiles(dir, folder)).toEqual({ names: [] });
  });

  it('gives the error for a folder that cannot be listed (a symlink loop)', async () => {
    const dir = await tempProject();
    await symlink('loop', path.join(dir, 'loop'));
    const listed = await listJsonFiles(dir, 'loop');
    expect(listed).toMatchObject({ error: { code: 'ELOOP' } });
  });
});
