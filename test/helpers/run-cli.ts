import { spawn } from 'node:child_process';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli as runCliInProcess } from '../../src/cli/run-cli.js';

/** The built CLI entry point (npm test builds first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** What a CLI invocation left behind: its exit code and everything it wrote. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Where and how the CLI runs: its directory, extra environment, and whether stdout is a terminal. */
export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  /** In-process only: stdout claims to be a terminal of this many columns (listings are capped). */
  readonly terminalColumns?: number;
  /** What the command reads on standard input (in-process: none when left out; a child: an empty pipe). */
  readonly stdin?: string | Uint8Array;
  /** In-process only: standard input claims to be a terminal. */
  readonly stdinIsTTY?: boolean;
}

/** Runs the CLI in this process through its I/O context, capturing stdout and stderr. */
export async function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const terminal = options.terminalColumns;
  const code = await runCliInProcess(args, {
    stdout: {
      write: (text: string) => (stdout += text),
      ...(terminal === undefined ? {} : { isTTY: true, columns: terminal }),
    },
    stderr: { write: (text: string) => (stderr += text) },
    env: { ...process.env, ...options.env },
    cwd: options.cwd ?? process.cwd(),
    ...(options.stdin === undefined
      ? {}
      : { stdin: inputStream(options.stdin, options.stdinIsTTY === true) }),
  });
  return { code, stdout, stderr };
}

/** Standard input holding `input`, flagged as a terminal when `isTTY`, as `process.stdin` is on one. */
function inputStream(input: string | Uint8Array, isTTY: boolean): Readable {
  const stream = Readable.from([Buffer.from(input)]);
  return isTTY ? Object.assign(stream, { isTTY: true }) : stream;
}

/** Runs the real CLI binary in a child process, `stdin` piped in, and collects its exit code and output. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  const { stdin, ...rest } = options;
  return runProgram(process.execPath, [CLI, ...args], stdin === undefined ? rest : { ...rest, input: stdin });
}

/**
 * Runs any program in a child process, with `input` (none by default) on its standard input, and collects its
 * exit code and output: the one child-process collector of the tests.
 */
export function runProgram(
  command: string,
  args: readonly string[],
  options: {
    readonly cwd?: string;
    readonly env?: Record<string, string>;
    readonly input?: string | Uint8Array;
  } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
    // A child that stops reading early (an input over its limit) closes the pipe: EPIPE here is its choice.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}
