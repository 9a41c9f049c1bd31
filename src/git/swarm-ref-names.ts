import { GitError } from './git-error.js';
import { runGit } from './run-git.js';

/** The namespace every ref the export writes lives in; nothing outside it is ever updated. */
export const SWARM_REF_PREFIX = 'refs/heads/swarm/';

/**
 * A run or task id as one ref name component: ids are `[A-Za-z0-9._-]`, so only git's rules on dots remain
 * (git-check-ref-format: no '..', no leading '.', no trailing '.' or '.lock').
 */
export function refComponent(id: string): string {
  let name = id.replace(/[^A-Za-z0-9._-]/g, '-').replace(/\.\./g, '.-');
  while (name.includes('..')) name = name.replace(/\.\./g, '.-');
  if (name.startsWith('.')) name = `-${name.slice(1)}`;
  if (name.endsWith('.lock')) name = `${name.slice(0, -'.lock'.length)}-lock`;
  if (name.endsWith('.')) name = `${name.slice(0, -1)}-`;
  return name;
}

/** The run's branch: `refs/heads/swarm/run-<run_id>`. */
export function runRefName(runId: string): string {
  return `${SWARM_REF_PREFIX}run-${refComponent(runId)}`;
}

/** A task's branch: `refs/heads/swarm/task-<run_id>-<task_id>`. */
export function taskRefName(runId: string, taskId: string): string {
  return `${SWARM_REF_PREFIX}task-${refComponent(runId)}-${refComponent(taskId)}`;
}

/**
 * The run's and its tasks' refs, checked by `git check-ref-format`; two tasks whose names map to one ref are
 * refused (`ref_collision`), as is a name git does not accept (`invalid_ref_name`).
 */
export async function swarmRefNames(
  runId: string,
  taskIds: readonly string[],
  cwd: string,
  gitPath?: string,
): Promise<{ readonly run: string; readonly tasks: ReadonlyMap<string, string> }> {
  const run = runRefName(runId);
  const tasks = new Map<string, string>();
  const owner = new Map<string, string>();
  for (const taskId of taskIds) {
    if (tasks.has(taskId)) continue;
    const ref = taskRefName(runId, taskId);
    const other = owner.get(ref);
    if (other !== undefined) {
      throw new GitError(
        'ref_collision',
        `tasks ${JSON.stringify(other)} and ${JSON.stringify(taskId)} of run ${runId} would share the branch ${ref.slice('refs/heads/'.length)}; nothing was written: rename one of the nodes`,
      );
    }
    owner.set(ref, taskId);
    tasks.set(taskId, ref);
  }
  for (const ref of [run, ...tasks.values()]) {
    try {
      await runGit(['check-ref-format', ref], { cwd, path: gitPath });
    } catch (error) {
      if (!(error instanceof GitError) || error.code !== 'git_failed') throw error;
      throw new GitError(
        'invalid_ref_name',
        `${ref} is not a valid git ref name (git check-ref-format refused it); nothing was written`,
      );
    }
  }
  return { run, tasks };
}
