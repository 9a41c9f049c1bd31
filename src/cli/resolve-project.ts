import path from 'node:path';
import { quickFs } from '../workspace/index.js';
import { UsageError } from './usage-error.js';

/** Where `--project` leads: its real directory, or why it is none (with the path it was resolved to). */
export type ProjectLookup =
  | { readonly ok: true; readonly projectDir: string }
  | {
      readonly ok: false;
      readonly projectDir: string;
      readonly problem: 'missing' | 'not_a_folder' | 'unreadable';
      readonly cause?: unknown;
    };

/** Resolves `--project` against `cwd` (default: `cwd` itself) to a real directory, or says why it is none. */
export async function lookUpProject(project: string | undefined, cwd: string): Promise<ProjectLookup> {
  const projectDir = path.resolve(cwd, project ?? '.');
  let isDirectory: boolean;
  try {
    isDirectory = (await quickFs.stat(projectDir)).isDirectory();
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const problem = code === 'ENOENT' || code === 'ENOTDIR' ? 'missing' : 'unreadable';
    return { ok: false, projectDir, problem, cause };
  }
  if (!isDirectory) return { ok: false, projectDir, problem: 'not_a_folder' };
  return { ok: true, projectDir: await quickFs.realpath(projectDir) };
}

/** Resolves `--project` against `cwd` (default: `cwd` itself) to a real directory, or explains what to fix. */
export async function resolveProject(
  project: string | undefined,
  command: string,
  cwd: string,
): Promise<string> {
  const found = await lookUpProject(project, cwd);
  if (found.ok) return found.projectDir;
  throw new UsageError(
    `--project ${found.projectDir} is not a directory; create it or point --project at the project root`,
    command,
  );
}
