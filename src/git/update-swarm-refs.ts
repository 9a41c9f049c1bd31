import { GitError } from './git-error.js';
import { SWARM_REF_PREFIX } from './swarm-ref-names.js';

/** What the export did to one ref. */
export interface SwarmRefUpdate {
  /** The full ref name, `refs/heads/swarm/...`. */
  readonly ref: string;
  readonly commit: string;
  readonly status: 'created' | 'updated' | 'unchanged';
  /** The commit it pointed at before, for `updated`. */
  readonly previous?: string;
}

type Git = (args: readonly string[], more?: { input?: string }) => Promise<string>;

/**
 * Points each ref at its commit in one `update-ref --stdin` transaction, each with the old value it was read
 * with (so a concurrent change fails the whole update); a ref of the same name that another run's export made is
 * refused (`ref_collision`), and a ref outside refs/heads/swarm/ is never named.
 */
export async function updateSwarmRefs(
  git: Git,
  runId: string,
  wanted: ReadonlyMap<string, string>,
): Promise<SwarmRefUpdate[]> {
  const current = new Map<string, string>();
  const listed = await git(['for-each-ref', '--format=%(objectname) %(refname)', SWARM_REF_PREFIX]);
  for (const line of listed.split('\n')) {
    const space = line.indexOf(' ');
    if (space > 0) current.set(line.slice(space + 1), line.slice(0, space));
  }
  const updates: SwarmRefUpdate[] = [];
  const commands: string[] = [];
  for (const [ref, commit] of wanted) {
    if (!ref.startsWith(SWARM_REF_PREFIX))
      throw new Error(`refusing to update ${ref}, outside ${SWARM_REF_PREFIX}`);
    const previous = current.get(ref);
    if (previous === commit) {
      updates.push({ ref, commit, status: 'unchanged' });
      continue;
    }
    if (previous !== undefined) {
      const owner = (
        await git(['log', '-1', '--format=%(trailers:key=Run-Id,valueonly,separator=%x2C)', previous])
      ).trim();
      if (owner !== runId) {
        throw new GitError(
          'ref_collision',
          `${ref.slice('refs/heads/'.length)} already holds ${owner === '' ? 'a commit without a Run-Id trailer' : `run ${owner}'s commit`} ${previous.slice(0, 12)}, not run ${runId}'s; nothing was written: delete that branch (git branch -D ${ref.slice('refs/heads/'.length)}) or export into another --repo`,
        );
      }
      commands.push(`update ${ref} ${commit} ${previous}`);
      updates.push({ ref, commit, status: 'updated', previous });
    } else {
      commands.push(`create ${ref} ${commit}`);
      updates.push({ ref, commit, status: 'created' });
    }
  }
  if (commands.length > 0) {
    try {
      await git(['update-ref', '--stdin'], { input: `${commands.join('\n')}\n` });
    } catch (error) {
      if (!(error instanceof GitError) || error.code !== 'git_failed') throw error;
      throw new GitError(
        'ref_moved',
        `the swarm/ branches changed while run ${runId} was exported (${error.message}); no branch was updated: export again`,
        { cause: error },
      );
    }
  }
  return updates;
}
