import { GitError } from './git-error.js';
import { runGit } from './run-git.js';
import { runRefName } from './swarm-ref-names.js';

/** A commit of a run's branch, as the report shows it. */
export interface RunCommit {
  readonly commit: string;
  /** The Task-Id trailer; null for the root commit of the workspace before the run. */
  readonly taskId: string | null;
  readonly subject: string;
}

/**
 * The commits of `refs/heads/swarm/run-<run_id>` in the repository at or above `repoDir`, oldest first; read
 * only, and [] when there is no such branch, no repository or no git.
 */
export async function readRunCommits(repoDir: string, runId: string, gitPath?: string): Promise<RunCommit[]> {
  const ref = runRefName(runId);
  try {
    await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: repoDir, path: gitPath });
    const out = await runGit(
      [
        'log',
        '--reverse',
        '--format=%H%x00%(trailers:key=Task-Id,valueonly,separator=%x2C)%x00%s%x1e',
        ref,
        '--',
      ],
      { cwd: repoDir, path: gitPath },
    );
    return out
      .split('\x1e')
      .map((entry) => entry.replace(/^\n/, ''))
      .filter((entry) => entry !== '')
      .map((entry) => {
        const [commit = '', taskId = '', subject = ''] = entry.split('\0');
        return { commit, taskId: taskId.trim() === '' ? null : taskId.trim(), subject };
      });
  } catch (error) {
    if (error instanceof GitError) return [];
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
