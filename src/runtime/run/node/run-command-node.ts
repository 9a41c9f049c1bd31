import { constants } from 'node:os';
import type { ArtifactPayload } from '../../../contracts/index.js';
import { describeError } from '../../../project/index.js';
import { errnoOf } from '../../../workspace/index.js';
import { runProgram } from '../../agents/index.js';

/** Exit code recorded for a program that could not start (the shell's "command not found"). */
export const NOT_STARTED_EXIT_CODE = 127;
/** Exit code recorded for a command stopped at its timeout (GNU timeout's). */
export const TIMED_OUT_EXIT_CODE = 124;
/** How long a stopped command gets between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2000;

/** One command of a command node, as it ran. */
export interface CommandRun {
  readonly argv: readonly string[];
  readonly exitCode: number;
  readonly passed: boolean;
  readonly durationMs: number;
  /** Why it failed without an exit status of its own: it could not start, or it timed out. */
  readonly note?: string;
  /** The last lines of its stdout and stderr, redacted. */
  readonly stdout: string;
  readonly stderr: string;
}

/** What a command node ran: every command, or `aborted` when the run was stopped mid-way. */
export type CommandNodeRun =
  | {
      readonly status: 'ran';
      readonly runs: readonly CommandRun[];
      readonly payload: ArtifactPayload<'smoke_test_result'>;
      readonly report: string;
    }
  | { readonly status: 'aborted' };

/** Options of {@link runCommandNode}. */
export interface CommandNodeOptions {
  readonly nodeId: string;
  readonly commands: readonly (readonly string[])[];
  readonly timeoutMs: number;
  /** The project directory: every command's working directory. */
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly signal: AbortSignal;
}

/**
 * Runs a command node's argv lists in order (no shell, each in its own process group, cwd = the project),
 * and returns the `smoke_test_result` they make and the markdown report that is the node's document. A
 * program that cannot start counts as exit code 127, a timeout as 124; a failed command never stops the next.
 */
export async function runCommandNode(options: CommandNodeOptions): Promise<CommandNodeRun> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
  const runs: CommandRun[] = [];
  for (const argv of options.commands) {
    const [program = '', ...args] = argv;
    const started = performance.now();
    const outcome = await runProgram({
      program,
      args,
      cwd: options.cwd,
      env,
      timeoutMs: options.timeoutMs,
      killGraceMs: KILL_GRACE_MS,
      signal: options.signal,
      stdout: 'tail',
    });
    const durationMs = Math.round(performance.now() - started);
    switch (outcome.kind) {
      case 'spawn_failed': {
        const errno = errnoOf(outcome.error) ?? describeError(outcome.error);
        const note = `could not start ${program} (${errno}${errno === 'ENOENT' ? ': not found on PATH' : ''}), recorded as exit code ${String(NOT_STARTED_EXIT_CODE)}`;
        runs.push({
          argv,
          exitCode: NOT_STARTED_EXIT_CODE,
          passed: false,
          durationMs,
          note,
          stdout: '',
          stderr: '',
        });
        break;
      }
      case 'stopped':
        if (outcome.reason === 'aborted') return { status: 'aborted' };
        runs.push({
          argv,
          exitCode: TIMED_OUT_EXIT_CODE,
          passed: false,
          durationMs,
          note: `did not finish within timeout_ms: ${String(options.timeoutMs)} and was stopped, recorded as exit code ${String(TIMED_OUT_EXIT_CODE)}`,
          stdout: outcome.stdout,
          stderr: outcome.stderr,
        });
        break;
      case 'exited': {
        // A signal's death is reported as the shell does: 128 + the signal number.
        const exitCode =
          outcome.code ?? 128 + (outcome.signal === null ? 0 : constants.signals[outcome.signal]);
        runs.push({
          argv,
          exitCode,
          passed: exitCode === 0,
          durationMs,
          ...(outcome.code === null ? { note: `killed by ${outcome.signal ?? 'a signal'}` } : {}),
          stdout: outcome.stdout,
          stderr: outcome.stderr,
        });
        break;
      }
    }
  }
  const payload = smokeResultOf(runs);
  return { status: 'ran', runs, payload, report: commandReport(options.nodeId, runs, payload) };
}

function commandText(argv: readonly string[]): string {
  return argv.join(' ');
}

function smokeResultOf(runs: readonly CommandRun[]): ArtifactPayload<'smoke_test_result'> {
  const passed = runs.filter((run) => run.passed).length;
  const failed = runs.length - passed;
  const notes = runs
    .filter((run) => run.note !== undefined)
    .map((run) => `${commandText(run.argv)}: ${run.note ?? ''}`);
  const summary = [
    `${String(passed)} of ${String(runs.length)} command${runs.length === 1 ? '' : 's'} passed`,
    ...notes,
  ].join('; ');
  return {
    commands: runs.map((run) => ({
      command: commandText(run.argv),
      exit_code: run.exitCode,
      passed: run.passed,
    })),
    passed,
    failed,
    summary,
  };
}

/** A fence longer than any backtick run of `text`, so command output can never close it (CommonMark 4.5). */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

function outputBlock(label: string, text: string): string[] {
  if (text === '') return [];
  const fence = fenceFor(text);
  return [`${label} (last lines):`, '', `${fence}text`, text, fence, ''];
}

function commandReport(
  nodeId: string,
  runs: readonly CommandRun[],
  payload: ArtifactPayload<'smoke_test_result'>,
): string {
  const lines = [
    `# Commands of node ${nodeId}`,
    '',
    payload.summary,
    '',
    '| # | command | exit code | result |',
    '|---|---|---|---|',
    ...runs.map(
      (run, index) =>
        `| ${String(index + 1)} | \`${commandText(run.argv).replace(/[`|]/g, ' ')}\` | ${String(run.exitCode)} | ${run.passed ? 'passed' : 'failed'} |`,
    ),
    '',
  ];
  for (const [index, run] of runs.entries()) {
    lines.push(
      `## ${String(index + 1)}. ${run.passed ? 'passed' : 'failed'}: exit code ${String(run.exitCode)}, ${String(run.durationMs)} ms`,
      '',
      ...(run.note === undefined ? [] : [run.note, '']),
      ...outputBlock('stdout', run.stdout),
      ...outputBlock('stderr', run.stderr),
    );
  }
  return `${lines.join('\n').replace(/\n+$/, '')}\n`;
}
