import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findStaleTempFiles } from '../../../src/workspace/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const TEMP = '.artifact-ingest-0123456789abcdef.tmp';

describe('findStaleTempFiles', () => {
  it('finds temp files at any depth of workspace/ and .agent/, and nothing else', async () => {
    const project = await tempProject({
      [`workspace/${TEMP}`]: 'x',
      [`workspace/src/deep/${TEMP}`]: 'x',
      [`.agent/runs/r1/manifests/${TEMP}`]: 'x',
      [`docs/${TEMP}`]: 'outside the two folders',
      'workspace/src/.artifact-ingest-12.tmp': 'not the pattern',
      'workspace/src/a.ts': 'a',
    });
    await mkdir(join(project, `workspace/.artifact-ingest-fedcba9876543210.tmp`));
    const found = await findStaleTempFiles(project);
    expect(found.map((temp) => temp.path)).toEqual([
      `.agent/runs/r1/manifests/${TEMP}`,
      `workspace/${TEMP}`,
      `workspace/src/deep/${TEMP}`,
    ]);
    expect(found[0]?.mtime).toBeInstanceOf(Date);
  });

  it('never follows a symlink below workspace/', async () => {
    const outside = await tempProject({ [TEMP]: 'x', [`sub/${TEMP}`]: 'x' });
    const project = await tempProject({ 'workspace/a.ts': 'a' });
    await symlink(join(outside, 'sub'), join(project, 'workspace/link'));
    await symlink(join(outside, TEMP), join(project, `workspace/${TEMP}`));
    expect(await findStaleTempFiles(project)).toEqual([]);
  });

  it('finds nothing in a project without workspace/ or .agent/', async () => {
    expect(await findStaleTempFiles(await tempProject())).toEqual([]);
  });

  it('keeps going past a file standing where .agent/ belongs', async () => {
    const project = await tempProject({ '.agent': 'a file', [`workspace/${TEMP}`]: 'x' });
    await writeFile(join(project, 'workspace/b.ts'), 'b');
    expect((await findStaleTempFiles(project)).map((temp) => temp.path)).toEqual([`workspace/${TEMP}`]);
  });
});
