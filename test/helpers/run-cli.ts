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
  /** In-process only: what the command reads on standard input (none when left out). */
  readonly stdin?: string;
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
    ...(options.stdin === undefined ? {} : { stdin: Readable.from([Buffer.from(options.stdin)]) }),
  });
  return { code, stdout, stderr };
}

/** Runs the real CLI binary in a child process and collects its exit code and output. */
export function spawnCli(args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return runProgram(process.execPath, [CLI, ...args], options);
}

/**
 * Runs any program in a child process, with `input` (none by default) on its standard input, and collects its
 * exit code and output: the one child-process collector of the tests.
 */
export function runProgram(
  command: string,
  args: readonly string[],
  options: { readonly cwd?: string; readonly env?: Record<string, string>; readonly input?: string } = {},
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
    child.stdin.end(options.input ?? '');
  });
}
