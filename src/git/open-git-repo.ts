import path from 'node:path';
import { quickFs } from '../workspace/index.js';
import { GitError } from './git-error.js';
import { runGit } from './run-git.js';

/** A repository the export writes into. */
export interface GitRepo {
  /** The absolute git directory: every command names it with --git-dir, so no work tree is involved. */
  readonly gitDir: string;
  readonly bare: boolean;
  /** True when the export created it (`git init --bare`). */
  readonly created: boolean;
}

/** How {@link openGitRepo} finds the repository. */
export interface OpenGitRepoOptions {
  /** `--repo DIR`: a repository at exactly DIR (a work tree's top or a bare one), created bare if missing. */
  readonly repo?: string;
  /** Without `repo`: the project folder, used when it is inside a git work tree. */
  readonly projectDir: string;
  readonly cwd: string;
  readonly path?: string | undefined;
}

/** Finds (or, for `--repo`, creates) the repository; a folder that is not one is `not_a_git_repo` (exit 2). */
export async function openGitRepo(options: OpenGitRepoOptions): Promise<GitRepo> {
  const { cwd } = options;
  if (options.repo === undefined) {
    const found = await probe(options.projectDir, cwd, options.path, false);
    if (found === undefined || found.bare) {
      throw new GitError(
        'not_a_git_repo',
        `the project folder ${options.projectDir} is not in a git work tree; pass --repo DIR (a git repository, or a folder to create a bare one in)`,
      );
    }
    return { ...found, created: false };
  }
  const dir = path.resolve(cwd, options.repo);
  if (!(await isMissingOrEmpty(dir))) {
    const found = await probe(dir, cwd, options.path, true);
    if (found === undefined) {
      throw new GitError(
        'not_a_git_repo',
        `--repo ${options.repo} is neither a git repository nor an empty folder; name a repository's top folder, a bare repository, or a new folder to create a bare one in`,
      );
    }
    return { ...found, created: false };
  }
  await quickFs.mkdir(dir, { recursive: true });
  await runGit(['init', '--quiet', '--bare', dir], { cwd, path: options.path });
  const gitDir = await quickFs.realpath(dir);
  return { gitDir, bare: true, created: true };
}

/** The repository at `dir` (exactly there when `exact`), or undefined when there is none. */
async function probe(
  dir: string,
  cwd: string,
  gitPath: string | undefined,
  exact: boolean,
): Promise<{ gitDir: string; bare: boolean } | undefined> {
  const real = await quickFs.realpath(dir).catch(() => undefined);
  // A file is no repository, and git cannot even start in it.
  if (real === undefined || !(await quickFs.stat(real)).isDirectory()) return undefined;
  // Exactly DIR: git must not walk up to a repository that merely contains it.
  const env: Record<string, string> = exact ? { GIT_CEILING_DIRECTORIES: path.dirname(real) } : {};
  const call = { cwd: real, env, path: gitPath };
  let gitDir: string;
  let isBare: boolean;
  let top: string | undefined;
  try {
    const [dirLine, bareLine] = (
      await runGit(['rev-parse', '--absolute-git-dir', '--is-bare-repository'], call)
    ).split('\n');
    if (dirLine === undefined || dirLine === '') return undefined;
    gitDir = dirLine;
    isBare = bareLine === 'true';
    // A bare repository has no top folder: git refuses --show-toplevel there.
    if (!isBare) top = (await runGit(['rev-parse', '--show-toplevel'], call)).trim();
  } catch (error) {
    if (error instanceof GitError && error.code === 'git_failed') return undefined;
    throw error;
  }
  if (exact) {
    const at = isBare ? gitDir : top;
    if (at === undefined || (await quickFs.realpath(at).catch(() => at)) !== real) return undefined;
  }
  return { gitDir, bare: isBare };
}

async function isMissingOrEmpty(dir: string): Promise<boolean> {
  const info = await quickFs.stat(dir).catch(() => undefined);
  if (info === undefined) return true;
  if (!info.isDirectory()) return false;
  return (await quickFs.readdir(dir)).length === 0;
}
