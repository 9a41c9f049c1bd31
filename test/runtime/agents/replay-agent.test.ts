import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError, type AgentRequest } from '../../../src/runtime/agents/agent.js';
import { createReplayAgent } from '../../../src/runtime/agents/replay-agent.js';

let root = '';
let dir = '';
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'replay-agent-'));
  dir = path.join(root, 'replies');
  await mkdir(dir);
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

function request(nodeId: string, prompt = 'any prompt', signal = new AbortController().signal): AgentRequest {
  return { runId: 'run-1', nodeId, prompt, signal };
}

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError)) throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

describe('createReplayAgent', () => {
  it.each([
    [1, 'first'],
    [2, 'second'],
    [3, 'first'],
  ])(
    'answers attempt %i with the attempt file when it exists, else the node file',
    async (attempt, expected) => {
      await writeFile(path.join(dir, 'develop.md'), 'first');
      await writeFile(path.join(dir, 'develop.attempt-2.md'), 'second');
      // attempt-1 is never read: the first ask always replays <node>.md.
      await writeFile(path.join(dir, 'develop.attempt-1.md'), 'never');
      const agent = createReplayAgent('demo', { kind: 'replay', dir });
      expect(await agent.complete({ ...request('develop'), attempt })).toBe(expected);
    },
  );

  it('replays the exact bytes of <dir>/<nodeId>.md: BOM, CRLF, unicode and trailing whitespace', async () => {
    const bytes = Buffer.from('\uFEFF# Plan\r\n\r\n- ünïcödé ✓ 🚀\r\n\t  \n\n', 'utf8');
    await writeFile(path.join(dir, 'planner.md'), bytes);
    const agent = createReplayAgent('demo', { kind: 'replay', dir });
    expect(agent).toMatchObject({ name: 'demo', kind: 'replay' });
    const reply = await agent.complete(request('planner'));
    expect(Buffer.from(reply, 'utf8').equals(bytes)).toBe(true);
  });

  it('ignores the prompt: the same node gets the same reply every time', async () => {
    await writeFile(path.join(dir, 'builder.v2.md'), 'built\n');
    const agent = createReplayAgent('demo', { kind: 'replay', dir });
    const replies = await Promise.all(
      ['first prompt', 'second prompt', ''].map((prompt) => agent.complete(request('builder.v2', prompt))),
    );
    expect(replies).toEqual(['built\n', 'built\n', 'built\n']);
  });

  it('fails with replay_missing naming the expected file and listing the replies that exist', async () => {
    await writeFile(path.join(dir, 'planner.md'), 'p');
    await writeFile(path.join(dir, 'reviewer.md'), 'r');
    await writeFile(path.join(dir, 'notes.txt'), 'not a reply');
    await mkdir(path.join(dir, 'folder.md'));
    const error = await failure(
      createReplayAgent('demo', { kind: 'replay', dir }).complete(request('builder')),
    );
    expect(error.code).toBe('replay_missing');
    expect(error.message).toContain(path.join(dir, 'builder.md'));
    expect(error.message).toContain('it holds planner.md, reviewer.md.');
    expect(error.message).not.toContain('notes.txt');
    expect(error.message).not.toContain('folder.md');
  });

  it('says when the replay directory itself is missing', async () => {
    const missing = path.join(root, 'nowhere');
    const error = await failure(
      createReplayAgent('demo', { kind: 'replay', dir: missing }).complete(request('planner')),
    );
    expect(error.code).toBe('replay_missing');
    expect(error.message).toContain(`the replay directory ${missing} does not exist`);
  });

  it.each(['../escape', '.hidden', 'a/b', 'a\\b', '', 'a'.repeat(129), 'nul\0byte', '-dash'])(
    'refuses the node id %j without touching the filesystem outside dir',
    async (nodeId) => {
      await writeFile(path.join(root, 'escape.md'), 'outside');
      const error = await failure(
        createReplayAgent('demo', { kind: 'replay', dir }).complete(request(nodeId)),
      );
      expect(error.code).toBe('replay_missing');
      expect(error.message).toContain('cannot name a reply file');
    },
  );

  it('rejects with aborted when the run is already stopped', async () => {
    await writeFile(path.join(dir, 'planner.md'), 'p');
    const agent = createReplayAgent('demo', { kind: 'replay', dir });
    const error = await failure(agent.complete(request('planner', 'x', AbortSignal.abort())));
    expect(error.code).toBe('aborted');
  });
});
