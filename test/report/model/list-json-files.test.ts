import { mkdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { listJsonFiles } from '../../../src/report/model/list-json-files.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const FOLDER = '.agent/runs/r1/manifests';

describe('listJsonFiles', () => {
  it('lists the .json files of a folder, sorted, without folders or other files', async () => {
    const dir = await tempProject({
      [`${FOLDER}/b.json`]: '{}',
      [`${FOLDER}/a.json`]: '{}',
      [`${FOLDER}/notes.txt`]: 'x',
    });
    await mkdir(path.join(dir, FOLDER, 'c.json'));
    expect(await listJsonFiles(dir, FOLDER)).toEqual({ names: ['a.json', 'b.json'] });
  });

  it('lists the same from a memory store', async () => {
    const store = createMemoryStore();
    await store.replace(`${FOLDER}/b.json`, '{}');
    await store.replace(`${FOLDER}/a.json`, '{}');
    await store.replace(`${FOLDER}/c.json/d.json`, '{}');
    await store.replace(`${FOLDER}/notes.txt`, 'x');
    const project = openProject(await tempProject(), { store });
    expect(await listJsonFiles(project, FOLDER)).toEqual({ names: ['a.json', 'b.json'] });
  });

  it.each([
    ['a missing folder', `${FOLDER}/none`],
    ['a file where the folder should be', '.agent/runs/r1/file.json'],
  ])('gives no names for %s', async (_case, folder) => {
    const dir = await tempProject({ '.agent/runs/r1/file.json': '{}' });
    expect(await listJsonFiles(dir, folder)).toEqual({ names: [] });
  });

  it('gives the error for a folder that cannot be listed (a symlink loop)', async () => {
    const dir = await tempProject({ '.agent/runs/r1/state.json': '{}' });
    await symlink('loop', path.join(dir, '.agent/runs/r1/loop'));
    const listed = await listJsonFiles(dir, '.agent/runs/r1/loop');
    expect(listed).toMatchObject({ error: { code: 'not_a_file', refusal: 'symlink' } });
  });
});
