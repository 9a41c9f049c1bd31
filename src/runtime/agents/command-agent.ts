import { describeError } from '../../project/index.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { redactSecrets } from '../../events/index.js';
import { AgentError, type Agent, type AgentConfig, type AgentRequest } from './agent.js';
import { errnoOf } from '../../workspace/index.js';
import { StderrTail } from './stderr-tail.js';

/** The `command` agent's configuration. */
export type CommandAgentConfig = Extract<AgentConfig, { kind: 'command' }>;

/** Settings of the `command` agent that do not come from the config file. */
export interface CommandAgentOptions {
  /** The environment the program inherits (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long a stopped program gets between SIGTERM and SIGKILL (default 2000 ms). */
  readonly killGraceMs?: number;
}

const DEFAULT_KILL_GRACE_MS = 2000;

/** An agent that runs a local program (argv, no shell) with the prompt on stdin and takes stdout as the reply. */
export function createCommandAgent(
  name: string,
  config: CommandAgentConfig,
  options: CommandAgentOptions = {},
): Agent {
  const [program, ...args] = config.command;
  if (program === undefined || program === '') {
    throw new TypeError(`command agent "${name}": command: must list the program and its arguments`);
  }
  if (!Number.isFinite(config.timeoutMs) || config.timeoutMs <= 0) {
    throw new TypeError(`command agent "${name}": timeout_ms must be a positive number of milliseconds`);
  }
  const run: CommandRun = {
    name,
    program,
    args,
    config,
    env: options.env ?? process.env,
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
  };
  return { name, kind: 'command', complete: (request) => runCommand(run, request) };
}

interface CommandRun {
  readonly name: string;
  readonly program: string;
  readonly args: readonly string[];
  readonly config: CommandAgentConfig;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly killGraceMs: number;
}

/** Why the agent stopped the program before it finished. */
type StopReason = 'timeout' | 'aborted';

function runCommand(run: CommandRun, request: AgentRequest): Promise<string> {
  if (request.signal.aborted) {
    return Promise.reject(fail(run, 'aborted', 'was not started because the run was stopped'));
  }
  return new Promise<string>((resolve, reject) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(run.program, run.args, {
        cwd: run.config.cwd,
        env: childEnv(run.env, request),
        stdio: 'pipe',
        // Its own process group, so a timeout also stops whatever the program started.
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      // spawn throws synchronously for arguments it cannot pass at all (a NUL byte, a bad cwd type).
      reject(spawnFailed(run, error));
      return;
    }

    const stdout: Buffer[] = [];
    const stderr = new StderrTail();
    let stopReason: StopReason | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const settle = (outcome: { reply: string } | { error: AgentError }): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      request.signal.removeEventListener('abort', onAbort);
      if ('reply' in outcome) resolve(outcome.reply);
      else reject(outcome.error);
    };

    const killGroup = (signal: NodeJS.Signals): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch (error) {
        // ESRCH: the group is already gone. Anything else: fall back to the direct child.
        if (errnoOf(error) !== 'ESRCH') child.kill(signal);
      }
    };

    const finishStopped = (reason: StopReason): void => {
      if (settled) return;
      // The leader is gone; stragglers in its group get no second chance, and their output no longer matters.
      killGroup('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      settle({ error: stoppedError(run, reason, stderr.excerpt()) });
    };

    const stop = (reason: StopReason): void => {
      if (settled || stopReason !== undefined) return;
      stopReason = reason;
      killGroup('SIGTERM');
      if (child.exitCode !== null || child.signalCode !== null) {
        finishStopped(reason);
        return;
      }
      graceTimer = setTimeout(() => {
        killGroup('SIGKILL');
      }, run.killGraceMs);
    };

    const onAbort = (): void => {
      stop('aborted');
    };
    const timeoutTimer = setTimeout(() => {
      stop('timeout');
    }, run.config.timeoutMs);
    request.signal.addEventListener('abort', onAbort, { once: true });

    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
    });
    // EPIPE/ECONNRESET: the program exited without reading all of its prompt; its exit status tells the story.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      // After a successful spawn, 'error' only reports a failed kill, which the exit handling covers.
      if (child.pid === undefined) settle({ error: spawnFailed(run, error) });
    });
    child.on('exit', () => {
      if (stopReason !== undefined) finishStopped(stopReason);
    });
    child.on('close', (code, signal) => {
      if (stopReason !== undefined) {
        finishStopped(stopReason);
        return;
      }
      if (child.pid === undefined) return;
      if (code !== 0) {
        settle({ error: exitStatusError(run, code, signal, stderr.excerpt()) });
        return;
      }
      const reply = Buffer.concat(stdout).toString('utf8');
      if (reply.trim() === '') {
        settle({ error: fail(run, 'empty_reply', 'exited 0 but wrote nothing to stdout', stderr.excerpt()) });
        return;
      }
      settle({ reply });
    });

    child.stdin.end(request.prompt, 'utf8');
  });
}

function childEnv(
  env: Readonly<Record<string, string | undefined>>,
  request: AgentRequest,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  result['ARTIFACT_INGEST_RUN_ID'] = request.runId;
  result['ARTIFACT_INGEST_NODE_ID'] = request.nodeId;
  return result;
}

function spawnFailed(run: CommandRun, error: unknown): AgentError {
  const errno = errnoOf(error) ?? describeError(error);
  const cwd = run.config.cwd;
  // spawn reports a missing working directory as ENOENT too, which would otherwise blame the program.
  const detail =
    errno === 'ENOENT' && cwd !== undefined && !existsSync(cwd)
      ? `its working directory cwd: ${cwd} does not exist; fix cwd: of the agent in artifact-ingest.config.yaml`
      : `could not start it (${errno}${errno === 'ENOENT' ? ': not found on PATH' : ''}); ` +
        'check command: of the agent in artifact-ingest.config.yaml (program first, then its arguments)';
  return fail(run, 'spawn_failed', detail, '', error);
}

function exitStatusError(
  run: CommandRun,
  code: number | null,
  signal: NodeJS.Signals | null,
  stderrExcerpt: string,
): AgentError {
  const how = code === null ? `was killed by signal ${signal ?? 'unknown'}` : `exited with status ${code}`;
  return fail(run, 'exit_status', how, stderrExcerpt);
}

function stoppedError(run: CommandRun, reason: StopReason, stderrExcerpt: string): AgentError {
  switch (reason) {
    case 'timeout':
      return fail(
        run,
        'timeout',
        `did not finish within timeout_ms: ${run.config.timeoutMs} and was stopped; raise timeout_ms, ` +
          'or check that the program does not wait for input other than stdin',
        stderrExcerpt,
      );
    case 'aborted':
      return fail(run, 'aborted', 'was stopped because the run was stopped', stderrExcerpt);
  }
}

function fail(
  run: CommandRun,
  code: AgentError['code'],
  detail: string,
  stderrExcerpt = '',
  cause?: unknown,
): AgentError {
  const tail = stderrExcerpt === '' ? '' : `\nstderr (last lines):\n${stderrExcerpt}`;
  const message = redactSecrets(`command agent "${run.name}": ${run.program} ${detail}`) + tail;
  return new AgentError(code, message, cause === undefined ? undefined : { cause });
}
