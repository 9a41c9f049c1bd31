import { readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeReportFile } from '../../src/cli/run/write-report-file.js';
import { renderRunReportPage } from '../../src/report/index.js';
import { runReport } from '../helpers/report-fixture.js';
import { tempProject } from '../helpers/temp-project.js';

const page = await renderRunReportPage(runReport());

describe('writeReportFile', () => {
  it('creates the file with the whole page and says how many bytes it wrote, leaving no temp file', async () => {
    const dir = await tempProject();
    const target = path.join(dir, 'run-1.report.html');
    expect(await writeReportFile(target, page, { force: false })).toEqual({
      path: target,
      bytes: Buffer.byteLength(page),
    });
    expect(await readFile(target, 'utf8')).toBe(page);
    expect(await readdir(dir)).toEqual(['run-1.report.html']);
  });

  it('replaces an earlier report without --force', async () => {
    const dir = await tempProject({ 'old.report.html': await renderRunReportPage(runReport({ steps: [] })) });
    const target = path.join(dir, 'old.report.html');
    await writeReportFile(target, page, { force: false });
    expect(await readFile(target, 'utf8')).toBe(page);
  });

  it.each([
    [
      'a file that is not a report',
      'notes.html',
      async (dir: string) => writeFile(path.join(dir, 'notes.html'), '<p>mine</p>'),
    ],
    [
      'a symlink to a report',
      'link.html',
      async (dir: string) => {
        await writeFile(path.join(dir, 'real.html'), page);
        await symlink(path.join(dir, 'real.html'), path.join(dir, 'link.html'));
      },
    ],
  ])('keeps %s and names --force', async (_name, file, plant) => {
    const dir = await tempProject();
    await plant(dir);
    const target = path.join(dir, file);
    const before = await readFile(target, 'utf8');
    await expect(writeReportFile(target, page, { force: false })).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('pass --force to replace it, or choose another -o') as unknown,
    });
    expect(await readFile(target, 'utf8')).toBe(before);
  });

  it('replaces anything with --force, a symlink itself rather than its target', async () => {
    const dir = await tempProject({ 'real.html': '<p>mine</p>' });
    await symlink(path.join(dir, 'real.html'), path.join(dir, 'link.html'));
    await writeReportFile(path.join(dir, 'link.html'), page, { force: true });
    expect(await readFile(path.join(dir, 'real.html'), 'utf8')).toBe('<p>mine</p>');
    expect(await readFile(path.join(dir, 'link.html'), 'utf8')).toBe(page);
  });

  it('says to create the folder when it does not exist', async () => {
    const dir = await tempProject();
    await expect(
      writeReportFile(path.join(dir, 'no', 'such', 'r.html'), page, { force: false }),
    ).rejects.toMatchObject({
      code: 'usage',
      message: expect.stringContaining('create the folder or choose another -o') as unknown,
    });
  });

  it.each([false, true])(
    'refuses a folder as the page, force %s, and names a file in it instead',
    async (force) => {
      const dir = await tempProject({ 'out/keep.txt': 'kept' });
      const target = path.join(dir, 'out');
      await expect(writeReportFile(target, page, { force })).rejects.toMatchObject({
        code: 'usage',
        message: `${target} is a folder; name the page's file with -o, such as ${path.join(target, 'run.report.html')}`,
      });
      expect(await readdir(target)).toEqual(['keep.txt']);
      expect(await readdir(dir)).toEqual(['out']);
    },
  );
});
