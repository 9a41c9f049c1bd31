import { describeError } from '../../project/index.js';
import { redactSecrets } from '../../events/index.js';
import { AgentError, type Agent, type AgentConfig, type AgentRequest } from './agent.js';
import { errnoOf, quickFs } from '../../workspace/index.js';
import { runProgram } from './run-program.js';

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

async function runCommand(run: CommandRun, request: AgentRequest): Promise<string> {
  if (request.signal.aborted) {
    throw fail(run, 'aborted', 'was not started because the run was stopped');
  }
  const outcome = await runProgram({
    program: run.program,
    args: run.args,
    ...(run.config.cwd === undefined ? {} : { cwd: run.config.cwd }),
    env: childEnv(run.env, request),
    stdin: request.prompt,
    timeoutMs: run.config.timeoutMs,
    killGraceMs: run.killGraceMs,
    signal: request.signal,
    stdout: 'all',
  });
  switch (outcome.kind) {
    case 'spawn_failed':
      throw await spawnFailed(run, outcome.error);
    case 'stopped':
      throw stoppedError(run, outcome.reason, outcome.stderr);
    case 'exited':
      if (outcome.code !== 0) throw exitStatusError(run, outcome.code, outcome.signal, outcome.stderr);
      if (outcome.stdout.trim() === '') {
        throw fail(run, 'empty_reply', 'exited 0 but wrote nothing to stdout', outcome.stderr);
      }
      return outcome.stdout;
  }
}

function childEnv(
  env: Readonly<Record<string, string | undefined>>,
  request: AgentRequest,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  result['ARTIFACT_INGEST_RUN_ID'] = request.runId;
  result['ARTIFACT_INGEST_NODE_ID'] = request.nodeId;
  result['ARTIFACT_INGEST_ATTEMPT'] = String(request.attempt ?? 1);
  return result;
}

async function spawnFailed(run: CommandRun, error: unknown): Promise<AgentError> {
  const errno = errnoOf(error) ?? describeError(error);
  const cwd = run.config.cwd;
  // spawn reports a missing working directory as ENOENT too, which would otherwise blame the program.
  const detail =
    errno === 'ENOENT' &&
    cwd !== undefined &&
    !(await quickFs.stat(cwd).then(
      () => true,
      () => false,
    ))
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

function stoppedError(run: CommandRun, reason: 'timeout' | 'aborted', stderrExcerpt: string): AgentError {
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
