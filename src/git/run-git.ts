import { execFile } from 'node:child_process';
import { GitError } from './git-error.js';

/** The oldest git the export runs with: `GIT_CONFIG_GLOBAL` (2.32) is how the user's config is kept out. */
export const MIN_GIT_VERSION = '2.32.0';

/** Where and how one git command runs. */
export interface GitCall {
  /** The repository's git directory (passed as --git-dir), or undefined for a command that takes none. */
  readonly gitDir?: string;
  /** The working directory of the child: never the user's work tree, so nothing there is read or written. */
  readonly cwd: string;
  readonly input?: string | Uint8Array;
  /** Extra environment (GIT_INDEX_FILE, GIT_AUTHOR_*, GIT_COMMITTER_*). */
  readonly env?: Readonly<Record<string, string>>;
  /** The PATH git is looked up in (default: the process's). */
  readonly path?: string | undefined;
}

// Config that changes a commit's bytes or what plumbing writes, fixed whatever the repository says.
const CONFIG_OVERRIDES = [
  'commit.gpgSign=false',
  'i18n.commitEncoding=UTF-8',
  'core.autocrlf=false',
  'core.safecrlf=false',
  'core.fsmonitor=false',
  'gc.auto=0',
].flatMap((setting) => ['-c', setting]);

/**
 * Runs git without a shell and with a clean environment: no inherited GIT_* variable, no system or global
 * config, the config that changes commit bytes overridden; returns stdout, throws a GitError on failure.
 */
export function runGit(args: readonly string[], call: GitCall): Promise<string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !key.startsWith('GIT_')) env[key] = value;
  if (call.path !== undefined) env.PATH = call.path;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    ...call.env,
  });
  const full = [
    ...CONFIG_OVERRIDES,
    ...(call.gitDir === undefined ? [] : [`--git-dir=${call.gitDir}`]),
    ...args,
  ];
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      full,
      { cwd: call.cwd, env, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve(stdout);
          return;
        }
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && error.killed !== true && stderr === '') {
          reject(
            new GitError(
              'git_missing',
              `git was not found on PATH; install git ${MIN_GIT_VERSION} or newer (https://git-scm.com/downloads) and run again`,
              { cause: error },
            ),
          );
          return;
        }
        const words = stderr.trim().split('\n').slice(-3).join(' ');
        reject(
          new GitError(
            'git_failed',
            `git ${args.join(' ')} failed: ${words === '' ? error.message : words}`,
            {
              cause: error,
            },
          ),
        );
      },
    );
    if (call.input !== undefined) child.stdin?.end(call.input);
    else child.stdin?.end();
  });
}

/** The installed git's version, checked against {@link MIN_GIT_VERSION}: git_missing or git_too_old otherwise. */
export async function checkGitVersion(cwd: string, path?: string): Promise<string> {
  const text = await runGit(['--version'], { cwd, path });
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  if (found === null) {
    throw new GitError(
      'git_too_old',
      `cannot read the version of git from ${JSON.stringify(text.trim())}; artifact-ingest needs git ${MIN_GIT_VERSION} or newer`,
    );
  }
  const version = found.slice(1, 4).map(Number);
  const needed = MIN_GIT_VERSION.split('.').map(Number);
  for (let at = 0; at < 3; at += 1) {
    const have = version[at] ?? 0;
    const want = needed[at] ?? 0;
    if (have > want) break;
    if (have < want) {
      throw new GitError(
        'git_too_old',
        `git ${found[0]} is too old: export git needs git ${MIN_GIT_VERSION} or newer (for GIT_CONFIG_GLOBAL, which keeps your git config out of the commits); upgrade git and run again`,
      );
    }
  }
  return found[0];
}
