import type { EventLog } from '../events/index.js';
import { exportRunToGit } from './export-run-to-git.js';
import { GitError } from './git-error.js';
import { describeError } from '../project/index.js';
import { projectDirOf } from '../store/index.js';
import type { ProjectRef } from '../store/index.js';

/**
 * Exports an ended run to git (`git: { export: true }`), fail-open as the ingest is: the outcome is an event of
 * the run (INFO `git.exported`, or WARNING `git.export_failed` with the error's code), never a failed run.
 */
export async function exportAtRunEnd(
  project: ProjectRef,
  runId: string,
  events: EventLog,
  repo: string | undefined,
): Promise<void> {
  try {
    const projectDir = projectDirOf(project);
    const done = await exportRunToGit(project, runId, {
      projectDir,
      cwd: projectDir,
      ...(repo === undefined ? {} : { repo }),
    });
    events.write('INFO', 'git.exported', {
      git_dir: done.repo.gitDir,
      commits: done.commits.length,
      branch: done.refs[0]?.ref.slice('refs/heads/'.length) ?? null,
      head: done.commits.at(-1)?.commit ?? null,
    });
  } catch (error) {
    events.write('WARNING', 'git.export_failed', {
      code: error instanceof GitError ? error.code : ((error as { code?: unknown }).code ?? 'internal_error'),
      message: describeError(error),
      hint: `the run is kept; export it later with 'artifact-ingest export git ${runId}'`,
    });
  }
}
