/**
 * The swapper: another process that turns a folder into a symlink to an outside folder and back, as fast as it
 * can or dwelling in each state, until a stop file appears; what the symlink-race scenarios run beside the
 * product.
 */
import { spawn } from 'node:child_process';

/**
 * The swapper's script. Without a dwell, each swap renames the folder aside, puts a fresh link to `outside` in
 * its place and the folder back, as fast as it can (the folder is mostly absent). With one, the folder and the
 * link take turns, each staying a random time of up to twice `dwell` ms, with only one rename between them where
 * the folder is absent.
 */
const SWAPPER = `
const { existsSync, mkdirSync, renameSync, symlinkSync, rmSync } = require('node:fs');
const path = require('node:path');
const [folder, outside, stopFile, deadline, dwellText] = process.argv.slice(1);
const name = path.basename(folder), parent = path.dirname(folder);
const parked = path.join(parent, '.' + name + '-parked'), link = path.join(parent, '.' + name + '-link');
const dwell = Number(dwellText);
const pause = new Int32Array(new SharedArrayBuffer(4));
const stay = () => { if (dwell > 0) Atomics.wait(pause, 0, 0, Math.random() * 2 * dwell); };
mkdirSync(folder, { recursive: true });
if (dwell > 0) { rmSync(link, { force: true }); symlinkSync(outside, link); }
let done = 0;
for (; done % 50 !== 0 || !(existsSync(stopFile) || Date.now() > Number(deadline)); done += 1) {
  try {
    renameSync(folder, parked);
    if (dwell === 0) { rmSync(link, { force: true }); symlinkSync(outside, link); }
    renameSync(link, folder);
    stay();
    renameSync(folder, link);
    renameSync(parked, folder);
    stay();
  } catch {}
}
process.stdout.write(String(done));
`;

/** Options of {@link startFolderSwapper}. */
export interface SwapperOptions {
  /** How long the folder and the link each stay in place on average (ms); 0 (the default): no pause at all. */
  readonly dwellMs?: number;
  /** The swapper stops by itself after this long, so a harness that dies never leaves it running. */
  readonly capMs?: number;
}

/**
 * Starts the swapper on `folder` (its parent also holds the swapper's `.<name>-parked` and `.<name>-link`);
 * resolves with the number of swaps once `stopFile` exists and the folder is back in place.
 */
export function startFolderSwapper(
  folder: string,
  outside: string,
  stopFile: string,
  options: SwapperOptions = {},
): Promise<number> {
  const deadline = Date.now() + (options.capMs ?? 3_600_000);
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', SWAPPER, folder, outside, stopFile, String(deadline), String(options.dwellMs ?? 0)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => {
      resolve(Number(out));
    });
  });
}
