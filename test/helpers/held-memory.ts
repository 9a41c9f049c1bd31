import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./held-memory-child.ts', import.meta.url));

/**
 * What a real child process held just before the end of a saved document (`spool`) or a streaming ingest
 * (`stream`) fed as fast as it takes text, after a full collection (see held-memory-child.ts), in `folder` (a fresh
 * project).
 */
export async function heldBy(
  mode: 'spool' | 'stream',
  folder: string,
): Promise<{ held: number; textBytes: number }> {
  const { stdout } = await run(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, mode, folder]);
  return JSON.parse(stdout) as { held: number; textBytes: number };
}
