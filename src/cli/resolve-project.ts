import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { UsageError } from './usage-error.js';

/** Resolves `--project` against `cwd` (default: `cwd` itself) to a real directory, or explains what to fix. */
export async function resolveProject(
  project: string | undefined,
  command: string,
  cwd: string,
): Promise<string> {
  const projectDir = path.resolve(cwd, project ?? '.');
  const info = await stat(projectDir).catch(() => null);
  if (info?.isDirectory() === true) return realpath(projectDir);
  throw new UsageError(
    `--project ${projectDir} is not a directory; create it or point --project at the project root`,
    command,
  );
}
