import { spawn } from 'node:child_process';
import { rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { withinMs } from './workspace-fixture.js';

/** Child process: flips DIR between a real folder and a symlink to OUTSIDE as fast as it can, until killed. */
const FLIPPER = `
const fs = require('node:fs');
const [dir, away, outside] = process.argv.slice(1);
const end = Date.now() + 120000;
let flips = 0;
// Busy-waits 0-1 ms, so each state lasts long enough to meet a check and the use after it.
const hold = () => { const until = process.hrtime.bigint() + BigInt(Math.floor(Math.random() * 1000000)); while (process.hrtime.bigint() < until); };
for (;;) {
  try { fs.renameSync(dir, away); } catch {}
  try { fs.symlinkSync(outside, dir); } catch {}
  if (flips === 0) process.stdout.write('ready\\n');
  flips += 1;
  hold();
  try { if (fs.lstatSync(dir).isSymbolicLink()) fs.unlinkSync(dir); } catch {}
  try { fs.renameSync(away, dir); } catch {}
  hold();
  if (Date.now() > end) break;
}
`;

/** A running flipper; `stop` kills it and puts the real folder back in place. */
export interface FolderFlipper {
  stop(): Promise<void>;
}

/**
 * Starts a child process that flips `projectDir/<folder>` between the real folder and a symlink to `outsideDir`
 * (renaming the real one to `<folder>.away` meanwhile) as fast as it can; resolves once it has flipped once.
 */
export async function startFolderFlipper(
  projectDir: string,
  folder: string,
  outsideDir: string,
): Promise<FolderFlipper> {
  const dir = path.join(projectDir, folder);
  const away = `${dir}.away`;
  const child = spawn(process.execPath, ['-e', FLIPPER, dir, away, outsideDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  await withinMs(new Promise((resolve) => child.stdout.once('data', resolve)), 10_000);
  return {
    stop: async () => {
      child.kill();
      await withinMs(exited, 10_000);
      // Killed half-way through a flip: put the real folder back.
      try {
        if ((await stat(away)).isDirectory()) await rename(away, dir);
      } catch {
        // Already in place.
      }
    },
  };
}
