import path from 'node:path';
import { AgentError, type Agent, type AgentConfig, type AgentRequest } from './agent.js';
import { ID_RULE, isId } from '../../project/index.js';
import { errnoOf, quickFs, readRegularFile } from '../../workspace/index.js';

/** The `replay` agent's configuration. */
export type ReplayAgentConfig = Extract<AgentConfig, { kind: 'replay' }>;

/** Existing replies listed in a `replay_missing` message before "and N more". */
const MAX_LISTED = 30;

/**
 * An agent that answers each node with the bytes of `<dir>/<nodeId>.md`, ignoring the prompt; a fix re-ask
 * (attempt n >= 2) gets `<dir>/<nodeId>.attempt-<n>.md` when that file exists.
 */
export function createReplayAgent(name: string, config: ReplayAgentConfig): Agent {
  return {
    name,
    kind: 'replay',
    complete: (request) => readReply(name, config.dir, request),
  };
}

async function readReply(name: string, dir: string, request: AgentRequest): Promise<string> {
  if (request.signal.aborted) throw abortedError(name);
  // Checked again here because the id becomes a file name.
  if (!isId(request.nodeId)) {
    throw new AgentError(
      'replay_missing',
      `replay agent "${name}": node id ${JSON.stringify(request.nodeId)} cannot name a reply file; ` +
        `node ids ${ID_RULE}`,
    );
  }
  const file = await replyFileOf(dir, request);
  try {
    // Buffer.toString keeps a BOM and every byte as written: the reply is replayed exactly.
    return (await readRegularFile(file, undefined, { signal: request.signal })).toString('utf8');
  } catch (error) {
    if (errnoOf(error) === 'ABORT_ERR') throw abortedError(name, error);
    if (errnoOf(error) === 'ENOENT') throw await missingReplyError(name, dir, file, error);
    throw new AgentError(
      'replay_missing',
      `replay agent "${name}": cannot read the reply ${file} (${errnoOf(error) ?? String(error)}); ` +
        'make it a readable file',
      { cause: error },
    );
  }
}

/** `<nodeId>.attempt-<n>.md` for a re-ask when the directory has it, else `<nodeId>.md`. */
async function replyFileOf(dir: string, request: AgentRequest): Promise<string> {
  const attempt = request.attempt ?? 1;
  if (Number.isSafeInteger(attempt) && attempt >= 2) {
    const attemptFile = path.join(dir, `${request.nodeId}.attempt-${String(attempt)}.md`);
    try {
      if ((await quickFs.stat(attemptFile)).isFile()) return attemptFile;
    } catch {
      // No reply for this attempt: the node's own reply is replayed again.
    }
  }
  return path.join(dir, `${request.nodeId}.md`);
}

async function missingReplyError(
  name: string,
  dir: string,
  file: string,
  cause: unknown,
): Promise<AgentError> {
  let existing: string[];
  try {
    existing = (await quickFs.readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return new AgentError(
      'replay_missing',
      `replay agent "${name}": no reply for this node: the replay directory ${dir} does not exist or ` +
        `cannot be read (expected ${file}); check dir: of the agent in artifact-ingest.config.yaml`,
      { cause },
    );
  }
  const listed = existing.slice(0, MAX_LISTED).join(', ');
  const more = existing.length > MAX_LISTED ? ` and ${existing.length - MAX_LISTED} more` : '';
  const found = existing.length === 0 ? 'it holds no .md files' : `it holds ${listed}${more}`;
  return new AgentError(
    'replay_missing',
    `replay agent "${name}": no reply file ${file}; ${found}. ` +
      'Add the file (named for the node id) or fix dir: of the agent',
    { cause },
  );
}

function abortedError(name: string, cause?: unknown): AgentError {
  return new AgentError('aborted', `replay agent "${name}": the run was stopped`, { cause });
}
