import { exportRunToGit, GitError, MIN_GIT_VERSION } from '../../git/index.js';
import type { GitErrorCode, GitExport } from '../../git/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { usingCommandProject } from '../using-command-project.js';
import { UsageError } from '../usage-error.js';

/** Help text of `artifact-ingest export git`. */
export const EXPORT_GIT_HELP = `Usage: artifact-ingest export git RUN_ID [--repo DIR] [--json] [--project DIR]

Write a run into a git repository: one commit per completed node (graph run) or step pass (workflow run),
in replay's step order; commit N's tree is the workspace after step N (what 'checkout --step N' rebuilds),
read from the object store and verified by hash. When other runs had left files in the workspace, a first
root commit holds the workspace before the run (no Task-Id). Branches: swarm/run-<run_id> at the last commit,
swarm/task-<run_id>-<task_id> at each task's (last) commit. Messages name the node, its agent and the files it
wrote, skipped and rejected, with trailers Run-Id, Task-Id, Agent-Id, Prompt-Sha256 and one Artifact-Id per
file version; the author is the agent, the committer artifact-ingest, the dates the node's end time.

The same run always gives the same commit ids: exporting again changes nothing. Your work tree, index, HEAD
and every ref outside refs/heads/swarm/ are never touched (a temporary index, commit-tree, update-ref), and
neither your git config nor commit signing changes the commits. Needs git ${MIN_GIT_VERSION} or newer.

Options:
  --repo DIR      the repository's top folder or a bare repository; a missing or empty folder becomes a new
                  bare repository (default: the git work tree the project folder is in)
  --json          print what was done as JSON (commits, and each branch created, updated or unchanged)
  --project DIR   project root (default: current directory)
  -h, --help      show this help

Exit codes: 0 exported; 1 a corrupt or missing object, an unsafe recorded path or a failed git command (no
branch was updated); 2 usage error (unknown run, git missing or too old, no repository, a branch name git
refuses or another run's branch of the same name). Documentation: docs/git.md.
`;

const EXIT_OF: Readonly<Record<GitErrorCode, 1 | 2>> = {
  git_missing: 2,
  git_too_old: 2,
  not_a_git_repo: 2,
  invalid_ref_name: 2,
  ref_collision: 2,
  git_failed: 1,
  ref_moved: 1,
  unsafe_record_path: 1,
};

/** Runs `artifact-ingest export git`; returns the exit code. */
export async function exportGitCommand(args: readonly string[], io: CliIo): Promise<number> {
  const usage = 'export git';
  const { values, positionals } = parseCommandArgs(usage, args, {
    repo: { type: 'string' },
    json: { type: 'boolean' },
    project: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(EXPORT_GIT_HELP);
    return 0;
  }
  const [runIdText, ...extra] = positionals;
  if (runIdText === undefined || extra.length > 0) {
    throw new UsageError("export git takes exactly one RUN_ID; list them with 'artifact-ingest runs'", usage);
  }
  if (values.repo === '') throw new UsageError('--repo needs a folder: --repo DIR', usage);
  const projectDir = await resolveProject(values.project, usage, io.cwd);
  let done: GitExport;
  try {
    done = await usingCommandProject(usage, values, io, async (project) => {
      const runId = await resolveRunId(project, runIdText);
      return exportRunToGit(project, runId, {
        projectDir,
        cwd: io.cwd,
        ...(values.repo === undefined ? {} : { repo: values.repo }),
        ...(io.env.PATH === undefined ? {} : { path: io.env.PATH }),
      });
    });
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    if (values.json === true)
      io.stdout.write(
        `${JSON.stringify({ error: { code: error.code, message: error.message } }, null, 2)}\n`,
      );
    io.stderr.write(`artifact-ingest: ${error.code}: ${error.message}\n`);
    return EXIT_OF[error.code];
  }
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(gitExportJson(done), null, 2)}\n`);
    return 0;
  }
  if (done.repo.created) io.stdout.write(`created the bare repository ${done.repo.gitDir}\n`);
  if (done.commits.length === 0) {
    io.stdout.write(`run ${done.runId} has no completed step; no commit was made\n`);
    return 0;
  }
  for (const commit of done.commits)
    io.stdout.write(`${commit.commit.slice(0, 12)} step ${commit.step} ${commit.subject}\n`);
  for (const ref of done.refs)
    io.stdout.write(`${ref.status.padEnd(9)} ${ref.ref.slice('refs/heads/'.length)}\n`);
  const runBranch = done.refs[0]?.ref.slice('refs/heads/'.length) ?? '';
  io.stdout.write(`see the run with: git --git-dir=${done.repo.gitDir} log --graph ${runBranch}\n`);
  return 0;
}

/** The --json shape: snake_case, one entry per commit and per branch. */
function gitExportJson(done: GitExport): unknown {
  return {
    run_id: done.runId,
    repo: { git_dir: done.repo.gitDir, bare: done.repo.bare, created: done.repo.created },
    git_version: done.gitVersion,
    commits: done.commits.map((commit) => ({
      step: commit.step,
      task_id: commit.taskId,
      agent_id: commit.agentId,
      commit: commit.commit,
      tree: commit.tree,
      subject: commit.subject,
    })),
    refs: done.refs.map((ref) => ({
      ref: ref.ref,
      branch: ref.ref.slice('refs/heads/'.length),
      commit: ref.commit,
      status: ref.status,
      ...(ref.previous === undefined ? {} : { previous: ref.previous }),
    })),
    changed: done.refs.some((ref) => ref.status !== 'unchanged'),
  };
}
