import { accessSync, constants } from 'node:fs';

const USUAL_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/lib/chromium/chromium',
  '/snap/bin/chromium',
  '/usr/bin/google-chrome',
];

/** The distribution's Chromium: `CHROMIUM_PATH` when set, else the first executable of the usual paths, else null. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  const candidates = env['CHROMIUM_PATH'] === undefined ? USUAL_PATHS : [env['CHROMIUM_PATH']];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not this one; try the next.
    }
  }
  return null;
}
