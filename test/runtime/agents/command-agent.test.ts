import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentError, type AgentRequest } from '../../../src/runtime/agents/agent.js';
import { createCommandAgent, type CommandAgentConfig } from '../../../src/runtime/agents/command-agent.js';

// An absolute loader URL, so fixtures also start when the agent runs them in another cwd.
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

function fixture(script: string, ...args: string[]): string[] {
  const file = fileURLToPath(new URL(`fixtures/${script}`, import.meta.url));
  return [process.execPath, '--import', TSX, file, ...args];
}

function commandConfig(
  command: readonly string[],
  extra: Partial<CommandAgentConfig> = {},
): CommandAgentConfig {
  return { kind: 'command', command, timeoutMs: 20_000, ...extra };
}

function request(prompt: string, signal: AbortSignal = new AbortController().signal): AgentRequest {
  return { runId: 'run-42', nodeId: 'planner', prompt, signal };
}

async function failure(promise: Promise<unknown>): Promise<AgentError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!(error instanceof AgentError)) throw new Error(`expected an AgentError, got ${String(error)}`);
  return error;
}

/** True once `pid` has exited; a zombie waiting for its new parent to reap it counts as exited. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

async function waitUntilGone(pid: number): Promise<boolean> {
  for (let tries = 0; tries < 60; tries += 1) {
    if (isGone(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return isGone(pid);
}

async function waitForFile(file: string): Promise<void> {
  for (let tries = 0; tries < 200 && !existsSync(file); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let dir = '';
const startedPids: number[] = [];
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'command-agent-'));
});
afterEach(async () => {
  // A failed assertion must not leave a fixture running: kill only the pids the fixtures reported.
  for (const pid of startedPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(dir, { recursive: true, force: true });
});

async function readPids(pidFile: string): Promise<number[]> {
  const pids = JSON.parse(await readFile(pidFile, 'utf8')) as number[];
  startedPids.push(...pids);
  return pids;
}

describe('createCommandAgent', () => {
  it('sends the prompt on stdin and returns stdout as the reply', async () => {
    const agent = createCommandAgent('local', commandConfig(fixture('upper-case-stdin.ts')));
    expect(agent).toMatchObject({ name: 'local', kind: 'command' });
    await expect(agent.complete(request('write the plan ✓ für alle\n'))).resolves.toBe(
      'WRITE THE PLAN ✓ FÜR ALLE\n',
    );
  });

  it('passes a prompt of several megabytes through stdin', async () => {
    const prompt = 'x'.repeat(3 * 1024 * 1024);
    const agent = createCommandAgent('local', commandConfig(fixture('upper-case-stdin.ts')));
    const reply = await agent.complete(request(prompt));
    expect(reply.length).toBe(prompt.length);
    expect(reply).toBe(prompt.toUpperCase());
  });

  it('returns a reply of 5 MB intact', async () => {
    const bytes = 5 * 1024 * 1024;
    const agent = createCommandAgent('local', commandConfig(fixture('print-bytes.ts', String(bytes))));
    const reply = await agent.complete(request('go'));
    expect(Buffer.byteLength(reply)).toBe(bytes);
    expect(reply.startsWith('abcdefghijklmnopqrstuvwxyz0123456789 ünïcödé ✓\nabc')).toBe(true);
  });

  it('inherits the environment and adds the run and node ids', async () => {
    const env = { ...process.env, AGENT_TEST_INHERITED: 'from the parent' };
    const cwd = await realpath(dir);
    const agent = createCommandAgent('local', commandConfig(fixture('print-env.ts'), { cwd }), { env });
    const reply = JSON.parse(await agent.complete(request('env?'))) as Record<string, string>;
    expect(reply).toEqual({ runId: 'run-42', nodeId: 'planner', inherited: 'from the parent', cwd });
  });

  it('survives a program that exits without reading its prompt (EPIPE)', async () => {
    const agent = createCommandAgent('local', commandConfig(fixture('exit-early.ts')));
    await expect(agent.complete(request('y'.repeat(8 * 1024 * 1024)))).resolves.toBe(
      'answered without reading\n',
    );
  });

  it('fails with exit_status, the status and the redacted tail of stderr', async () => {
    const agent = createCommandAgent('local', commandConfig(fixture('exit-with-stderr.ts', '50', '3')));
    const error = await failure(agent.complete(request('go')));
    expect(error.code).toBe('exit_status');
    expect(error.message).toContain('exited with status 3');
    expect(error.message).toContain('stderr line 50');
    expect(error.message).not.toContain('stderr line 30\n');
    expect(error.message).not.toContain('hunter2-super-secret-value');
    expect(error.message).toContain('api_key=[REDACTED]');
    expect(error.message.length).toBeLessThan(2600);
  });

  it('fails with empty_reply when stdout holds only whitespace', async () => {
    const agent = createCommandAgent('local', commandConfig(fixture('print-nothing.ts')));
    const error = await failure(agent.complete(request('go')));
    expect(error.code).toBe('empty_reply');
    expect(error.message).toContain('wrote nothing to stdout');
  });

  it('fails with spawn_failed naming the program when it does not exist', async () => {
    const agent = createCommandAgent('local', commandConfig(['no-such-program-artifact-ingest', '--flag']));
    const error = await failure(agent.complete(request('go')));
    expect(error.code).toBe('spawn_failed');
    expect(error.message).toContain('no-such-program-artifact-ingest');
    expect(error.message).toContain('ENOENT');
    expect(error.message).toContain('command:');
  });

  it('blames cwd, not the program, when the working directory is missing', async () => {
    const cwd = path.join(dir, 'missing');
    const agent = createCommandAgent('local', commandConfig(fixture('upper-case-stdin.ts'), { cwd }));
    const error = await failure(agent.complete(request('go')));
    expect(error.code).toBe('spawn_failed');
    expect(error.message).toContain(`cwd: ${cwd} does not exist`);
  });

  it('kills the program after timeout_ms and leaves no process behind', async () => {
    const pidFile = path.join(dir, 'pids.json');
    const config = commandConfig(fixture('sleep-forever.ts', pidFile), { timeoutMs: 2500 });
    const agent = createCommandAgent('local', config);
    const error = await failure(agent.complete(request('go')));
    expect(error.code).toBe('timeout');
    expect(error.message).toContain('timeout_ms: 2500');
    expect(error.message).toContain('sleeping');
    const [pid] = await readPids(pidFile);
    expect(await waitUntilGone(pid!)).toBe(true);
  });

  it('on abort, kills the whole process group, with SIGKILL for a program that ignores SIGTERM', async () => {
    const pidFile = path.join(dir, 'pids.json');
    const config = commandConfig(fixture('sleep-forever.ts', pidFile, '--ignore-term', '--grandchild'));
    const agent = createCommandAgent('local', config, { killGraceMs: 300 });
    const controller = new AbortController();
    const completion = failure(agent.complete(request('go', controller.signal)));
    await waitForFile(pidFile);
    const pids = await readPids(pidFile);
    expect(pids).toHaveLength(2);
    controller.abort();
    const error = await completion;
    expect(error.code).toBe('aborted');
    for (const pid of pids) expect(await waitUntilGone(pid)).toBe(true);
  });

  it('does not start the program when the signal is already aborted', async () => {
    const pidFile = path.join(dir, 'pids.json');
    const agent = createCommandAgent('local', commandConfig(fixture('sleep-forever.ts', pidFile)));
    const error = await failure(agent.complete(request('go', AbortSignal.abort())));
    expect(error.code).toBe('aborted');
    expect(existsSync(pidFile)).toBe(false);
  });

  it.each([
    ['an empty command', commandConfig([])],
    ['a zero timeout', commandConfig(['true'], { timeoutMs: 0 })],
  ])('refuses %s when created', (_case, config) => {
    expect(() => createCommandAgent('local', config)).toThrow(TypeError);
  });
});
