import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpooledFile } from '../../src/workspace/index.js';
import { heldBy } from '../helpers/held-memory.js';
import { tempProject } from '../helpers/temp-project.js';

const MB = 1024 * 1024;

describe('SpooledFile memory (a real child process, measured after a full collection)', () => {
  it('a saved document holds a batch or two of its text, not the text, however fast it is written', async () => {
    const { held, textBytes } = await heldBy('spool', await tempProject());
    expect(textBytes).toBe(16_000_000);
    expect(held).toBeLessThan(2 * MB);
  }, 60_000);
});

describe('SpooledFile', () => {
  it('writes its batches to the temp file while the text comes, when the writer waits as asked', async () => {
    const folder = await tempProject();
    const file = new SpooledFile(path.join(folder, 'doc.md'), 'none');
    const line = `${'y'.repeat(99)}\n`;
    // A writer that never lets the event loop run but where write() asks it to wait.
    for (let n = 0; n < 10_000; n++) await file.write(line);
    const [temp] = (await readdir(folder)).filter((name) => name !== 'doc.md');
    if (temp === undefined) throw new Error('no temp file while writing');
    // At most the batch being filled and one being written are not in the file yet (64 Ki characters each).
    expect((await stat(path.join(folder, temp))).size).toBeGreaterThan(1_000_000 - 2 * 65_536);
    await file.commit();
    expect((await stat(path.join(folder, 'doc.md'))).size).toBe(1_000_000);
  });
});
