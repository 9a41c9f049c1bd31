import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../src/project/index.js';
import { snapshotProject } from '../../../src/workflow/index.js';
import type { ProjectSnapshot } from '../../../src/workflow/index.js';
import { startFolderFlipper } from '../../helpers/folder-flipper.js';
import { tempProject } from '../../helpers/temp-project.js';

const INSIDE = 'inside bytes\n';
const OUTSIDE = 'outside bytes, longer than the inside ones\n';

describe('snapshotProject against a hostile agent', () => {
  it('never hashes an outside file as a project file while a child process flips a folder to a symlink', async () => {
    const projectDir = await tempProject({ 'dir/file.txt': INSIDE, 'dir/sub/deep.txt': INSIDE });
    const outsideDir = await tempProject({
      'file.txt': OUTSIDE,
      'sub/deep.txt': OUTSIDE,
      'only-outside.txt': OUTSIDE,
    });
    const flipper = await startFolderFlipper(projectDir, 'dir', outsideDir);
    const snapshots: ProjectSnapshot[] = [];
    try {
      // Cold every time (no previous snapshot), so every file found is hashed.
      for (let round = 0; round < 100; round += 1) snapshots.push(await snapshotProject(projectDir));
    } finally {
      await flipper.stop();
    }
    const seen = new Map<string, number>();
    for (const snapshot of snapshots) {
      for (const [file, entry] of Object.entries(snapshot.files)) {
        const what = `${file}${entry.symlink === true ? ' -> ' : ' '}${entry.sha256.slice(0, 8)}`;
        seen.set(what, (seen.get(what) ?? 0) + 1);
      }
    }
    const inside = sha256Hex(INSIDE).slice(0, 8);
    // A symlink is hashed by its text: the outside folder's path.
    const link = sha256Hex(outsideDir).slice(0, 8);
    // The folder is seen as a folder (its files with the inside bytes) or as a symlink (its text), nothing else.
    expect(
      [...seen.keys()].filter(
        (what) =>
          ![
            `dir/file.txt ${inside}`,
            `dir/sub/deep.txt ${inside}`,
            `dir -> ${link}`,
            // Caught moved away mid-flip, the real folder is in the project under its other name.
            `dir.away/file.txt ${inside}`,
            `dir.away/sub/deep.txt ${inside}`,
          ].includes(what),
      ),
    ).toEqual([]);
    expect(seen.get(`dir/file.txt ${inside}`)).toBeGreaterThan(0);
  }, 120_000);
});
