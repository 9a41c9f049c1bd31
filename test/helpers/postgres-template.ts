import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstat, mkdir, mkdtemp, realpath, rename, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * A cache of `initdb`'s output, one per set of PostgreSQL binaries, in a folder of this user's own under the temp
 * directory: copying it (`cp -a`, about 0.08 s here) replaces `initdb` (about 1.1 s) for every test run after the
 * first. A cached data directory is never started, only copied, so it stays as `initdb` left it.
 */

const execFileAsync = promisify(execFile);

/** The `initdb` program and its options but `-D` (the cache key: another binary or other options, another cache). */
export interface InitdbCommand {
  readonly initdb: string;
  readonly options: readonly string[];
}

/** Copies the cached data directory of `command` to `data` (keeping owners and modes); false when there is none. */
export async function copyFromTemplate(
  command: InitdbCommand,
  data: string,
  root = defaultTemplatesRoot(),
): Promise<boolean> {
  const template = await templateDir(command, root);
  if (template === undefined) return false;
  try {
    await stat(path.join(template, 'data', 'PG_VERSION'));
  } catch {
    return false;
  }
  try {
    await execFileAsync('cp', ['-a', path.join(template, 'data'), data]);
    return true;
  } catch {
    await rm(data, { recursive: true, force: true });
    return false;
  }
}

/** Keeps a copy of `data`, fresh from `command`, as its cached data directory; best effort. */
export async function keepAsTemplate(
  command: InitdbCommand,
  data: string,
  root = defaultTemplatesRoot(),
): Promise<void> {
  const template = await templateDir(command, root);
  if (template === undefined) return;
  let staging: string | undefined;
  try {
    await stat(template);
    return;
  } catch {
    // Not cached yet.
  }
  try {
    staging = await mkdtemp(path.join(path.dirname(template), '.staging-'));
    await execFileAsync('cp', ['-a', data, path.join(staging, 'data')]);
    // Atomic: a concurrent run sees the whole template or none; when another run won the race, ours is dropped.
    await rename(staging, template);
  } catch {
    if (staging !== undefined) await rm(staging, { recursive: true, force: true });
  }
}

/** `<tmp>/artifact-ingest-postgres-templates-<uid>`: one folder per user, since the server runs as another. */
function defaultTemplatesRoot(): string {
  return path.join(tmpdir(), `artifact-ingest-postgres-templates-${process.getuid?.() ?? 'none'}`);
}

/**
 * `<root>/<key of the command>`, or undefined when `root` is not this user's alone (a planted one could hand the
 * server a configuration that runs commands).
 */
async function templateDir(command: InitdbCommand, root: string): Promise<string | undefined> {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  try {
    await mkdir(root, { mode: 0o700 });
  } catch {
    // Exists already: checked below.
  }
  try {
    const info = await lstat(root);
    if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) return undefined;
    const binary = await realpath(command.initdb);
    const binaryInfo = await stat(binary);
    const key = createHash('sha256')
      .update([binary, binaryInfo.size, binaryInfo.mtimeMs, ...command.options].join('\0'))
      .digest('hex')
      .slice(0, 16);
    return path.join(root, key);
  } catch {
    return undefined;
  }
}
