import { createHash } from 'node:crypto';
import path from 'node:path';
import { readCheckoutFiles, replayRun } from '../artifacts/index.js';
import type { ReplayStep } from '../artifacts/index.js';
import { readIngestManifest } from '../ingest/index.js';
import type { ProjectRef } from '../store/index.js';
import { withScratchFolder } from '../workspace/index.js';
import type { ScratchFolder } from '../workspace/index.js';
import { baseCommitMessage, stepCommitMessage } from './commit-message.js';
import type { NotWrittenBlocks } from './commit-message.js';
import { GitError } from './git-error.js';
import { openGitRepo } from './open-git-repo.js';
import type { GitRepo } from './open-git-repo.js';
import { checkGitVersion, runGit } from './run-git.js';
import { swarmRefNames } from './swarm-ref-names.js';
import { updateSwarmRefs } from './update-swarm-refs.js';
import type { SwarmRefUpdate } from './update-swarm-refs.js';

/** Options of {@link exportRunToGit}. */
export interface ExportRunToGitOptions {
  /** A repository at exactly this folder (a work tree's top or a bare one), created bare when missing or empty. */
  readonly repo?: string;
  /** The project folder: the default repository is the work tree it is in. */
  readonly projectDir: string;
  /** Where a relative `repo` resolves (default: the process's cwd). */
  readonly cwd?: string;
  /** The PATH git is looked up in (default: the process's). */
  readonly path?: string;
}

/** One commit the export made (or found already made). */
export interface ExportedCommit {
  /** The step it records (1-based, `checkout --step N`); 0 for the root commit of the workspace before the run. */
  readonly step: number;
  /** The node or workflow step; null for the root commit. */
  readonly taskId: string | null;
  readonly agentId: string | null;
  readonly commit: string;
  readonly tree: string;
  readonly subject: string;
}

/** What {@link exportRunToGit} did. */
export interface GitExport {
  readonly runId: string;
  readonly repo: GitRepo;
  readonly gitVersion: string;
  /** In order, parents first. */
  readonly commits: readonly ExportedCommit[];
  /** The run's branch first, then each task's in the order its last commit was made. */
  readonly refs: readonly SwarmRefUpdate[];
}

const AUTHOR_DOMAIN = 'artifact-ingest.invalid';

/**
 * Writes a run into a git repository as one commit per completed node or step pass (commit N's tree is what
 * `checkout --step N` rebuilds), on `swarm/run-<run_id>` and `swarm/task-<run_id>-<task_id>`: built in a
 * temporary index from the object store's verified contents, so the user's work tree, index, HEAD and refs
 * outside refs/heads/swarm/ are never touched; the same run always gives the same commit ids.
 */
export async function exportRunToGit(
  project: ProjectRef,
  runId: string,
  options: ExportRunToGitOptions,
): Promise<GitExport> {
  // Blobs and temporary indexes live in a scratch folder, removed whatever happens.
  return withScratchFolder('artifact-ingest-git-', async (folder) => {
    const scratch = folder.dir;
    const gitPath = options.path;
    const gitVersion = await checkGitVersion(scratch, gitPath);
    const replay = await replayRun(project, runId);
    const steps = replay.steps.filter((step) => step.step !== null);
    // Every tree is read and verified before git is asked to write anything: a corrupt object updates no ref.
    const trees: TreeFiles[] = [];
    for (let step = 0; step <= steps.length; step += 1) {
      const { contents } = await readCheckoutFiles(project, { runId: replay.runId, step });
      trees.push(contents.map(([record, bytes]) => treeFile(record.path, record.artifactId, bytes)));
    }
    const names = await swarmRefNames(
      replay.runId,
      steps.map((step) => step.taskId),
      scratch,
      gitPath,
    );
    const repo = await openGitRepo({
      ...(options.repo === undefined ? {} : { repo: options.repo }),
      projectDir: options.projectDir,
      cwd: options.cwd ?? process.cwd(),
      path: gitPath,
    });
    const git = (args: readonly string[], more: { input?: string; env?: Record<string, string> } = {}) =>
      runGit(args, { gitDir: repo.gitDir, cwd: scratch, path: gitPath, ...more });
    const blobs = await writeBlobs(git, folder, trees);

    const commits: ExportedCommit[] = [];
    let parent: string | undefined;
    const base = trees[0] ?? [];
    if (base.length > 0) {
      const time = replay.startedAt ?? steps[0]?.startedAt ?? new Date(0).toISOString();
      const made = await makeCommit(git, scratch, 0, base, blobs, {
        message: baseCommitMessage(replay.runId, base.length),
        author: 'artifact-ingest',
        time,
      });
      commits.push({ step: 0, taskId: null, agentId: null, ...made });
      parent = made.commit;
    }
    for (const [index, step] of steps.entries()) {
      const number = index + 1;
      const made = await makeCommit(git, scratch, number, trees[number] ?? [], blobs, {
        message: stepCommitMessage(replay.runId, step, number, await notWrittenBlocks(project, step)),
        author: step.agentId,
        time: step.finishedAt,
        ...(parent === undefined ? {} : { parent }),
      });
      commits.push({ step: number, taskId: step.taskId, agentId: step.agentId, ...made });
      parent = made.commit;
    }
    if (parent === undefined) return { runId: replay.runId, repo, gitVersion, commits, refs: [] };
    const wanted = new Map<string, string>([[names.run, parent]]);
    for (const commit of commits) {
      if (commit.taskId === null) continue;
      const ref = names.tasks.get(commit.taskId);
      if (ref !== undefined) wanted.set(ref, commit.commit);
    }
    const refs = await updateSwarmRefs(git, replay.runId, wanted);
    return { runId: replay.runId, repo, gitVersion, commits, refs };
  });
}

/** One file of a tree: its path inside the workspace, and its verified bytes. */
interface TreeFile {
  readonly path: string;
  readonly contentHash: string;
  readonly bytes: Uint8Array;
}
type TreeFiles = readonly TreeFile[];

/** A workspace version as a tree entry; a path git or the workspace rules would not take is refused. */
function treeFile(recordPath: string, artifactId: string, bytes: Uint8Array): TreeFile {
  const relative = recordPath.startsWith('workspace/') ? recordPath.slice('workspace/'.length) : undefined;
  const segments = relative?.split('/') ?? [];
  const unsafe =
    relative === undefined ||
    segments.some(
      (segment) =>
        segment === '' ||
        segment === '.' ||
        segment === '..' ||
        segment.toLowerCase() === '.git' ||
        /[\0\n\r\\]/.test(segment),
    );
  if (unsafe) {
    throw new GitError(
      'unsafe_record_path',
      `record ${artifactId} names ${JSON.stringify(recordPath)}, which is not a path inside workspace/; nothing was written: remove that record (docs/lineage.md) and export again`,
    );
  }
  return { path: relative, contentHash: contentKey(bytes), bytes };
}

/** The key blobs are shared by: the sha256 of the verified bytes. */
function contentKey(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

type Git = (
  args: readonly string[],
  more?: { input?: string; env?: Record<string, string> },
) => Promise<string>;

/** Writes each distinct content once as a blob (`hash-object -w --no-filters`, no attributes applied). */
async function writeBlobs(
  git: Git,
  scratch: ScratchFolder,
  trees: readonly TreeFiles[],
): Promise<Map<string, string>> {
  const distinct = new Map<string, TreeFile>();
  for (const tree of trees)
    for (const file of tree) if (!distinct.has(file.contentHash)) distinct.set(file.contentHash, file);
  const ids = new Map<string, string>();
  if (distinct.size === 0) return ids;
  const files: string[] = [];
  let at = 0;
  for (const file of distinct.values()) {
    files.push(await scratch.write(`blob-${String(at)}`, file.bytes));
    at += 1;
  }
  const out = (
    await git(['hash-object', '-w', '--no-filters', '--stdin-paths'], { input: `${files.join('\n')}\n` })
  )
    .trim()
    .split('\n');
  [...distinct.keys()].forEach((key, index) => {
    const id = out[index];
    if (id === undefined) throw new GitError('git_failed', 'git hash-object answered fewer ids than files');
    ids.set(key, id);
  });
  return ids;
}

/** A commit of `files` in a fresh temporary index: write-tree, then commit-tree with fixed identities and dates. */
async function makeCommit(
  git: Git,
  scratch: string,
  number: number,
  files: TreeFiles,
  blobs: ReadonlyMap<string, string>,
  what: { message: string; author: string; time: string; parent?: string },
): Promise<{ commit: string; tree: string; subject: string }> {
  const index = path.join(scratch, `index-${number}`);
  const env = { GIT_INDEX_FILE: index };
  if (files.length > 0) {
    const entries = files
      .map((file) => `100644 ${blobs.get(file.contentHash) ?? ''}\t${file.path}\0`)
      .join('');
    await git(['update-index', '-z', '--add', '--index-info'], { input: entries, env });
  }
  const tree = (await git(['write-tree'], { env })).trim();
  const name = identName(what.author);
  const date = `@${Math.floor(Date.parse(what.time) / 1000)} +0000`;
  const commit = (
    await git(
      ['commit-tree', '--no-gpg-sign', tree, ...(what.parent === undefined ? [] : ['-p', what.parent])],
      {
        input: what.message,
        env: {
          GIT_AUTHOR_NAME: name,
          GIT_AUTHOR_EMAIL: `${emailLocal(what.author)}@${AUTHOR_DOMAIN}`,
          GIT_AUTHOR_DATE: date,
          GIT_COMMITTER_NAME: 'artifact-ingest',
          GIT_COMMITTER_EMAIL: `artifact-ingest@${AUTHOR_DOMAIN}`,
          GIT_COMMITTER_DATE: date,
        },
      },
    )
  ).trim();
  return { commit, tree, subject: what.message.split('\n')[0] ?? '' };
}

/** An agent id as a git ident name: git refuses '<', '>' and newlines there. */
function identName(agentId: string): string {
  return agentId.replace(/[<>]|\p{Cc}/gu, '-');
}

function emailLocal(agentId: string): string {
  return agentId.replace(/[^A-Za-z0-9._+-]/g, '-');
}

/**
 * The blocks of the step's ingest that were not written (skipped or refused), from its manifest; none when the
 * step ingested nothing, and a line saying why when the manifest cannot be read (the commit still gets made).
 */
async function notWrittenBlocks(project: ProjectRef, step: ReplayStep): Promise<NotWrittenBlocks> {
  const manifestPath = step.ingest?.manifest_path;
  if (manifestPath === undefined) return { blocks: [] };
  const read = await readIngestManifest(project, manifestPath);
  if ('problem' in read) return { blocks: [], unreadable: read.problem.code };
  return {
    blocks: read.manifest.artifacts
      .filter((block) => block.status !== 'written')
      .map((block) => ({ status: block.status, declaredFile: block.declared_file, reason: block.reason })),
  };
}
