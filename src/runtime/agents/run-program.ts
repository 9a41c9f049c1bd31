import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { errnoOf } from '../../workspace/index.js';
import { StderrTail } from './stderr-tail.js';

/** One program to run: argv (no shell), where, with what on stdin, for how long. */
export interface ProgramRun {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  readonly env: Readonly<Record<string, string>>;
  /** Written to the program's stdin, which is then closed (empty when absent). */
  readonly stdin?: string;
  readonly timeoutMs: number;
  /** How long a stopped program gets between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** Aborting it stops the program (its whole process group). */
  readonly signal: AbortSignal;
  /** `all`: keep every byte of stdout (an agent's reply); `tail`: only its last lines, like stderr. */
  readonly stdout: 'all' | 'tail';
}

/** How a program ended; never a throw. */
export type ProgramOutcome =
  | {
      readonly kind: 'exited';
      /** The exit status, or null when a signal ended it. */
      readonly code: number | null;
      readonly signal: NodeJS.Signals | null;
      /** Every byte (`stdout: all`) or the last lines, redacted (`stdout: tail`). */
      readonly stdout: string;
      /** The last lines of stderr, redacted. */
      readonly stderr: string;
    }
  | {
      readonly kind: 'stopped';
      readonly reason: 'timeout' | 'aborted';
      readonly stdout: string;
      readonly stderr: string;
    }
  | { readonly kind: 'spawn_failed'; readonly error: unknown };

/**
 * Runs one program in its own process group (argv, no shell) and waits for it: on timeout or abort the whole
 * group gets SIGTERM, then SIGKILL after the grace period. Shared by the `command` agent and command nodes.
 */
export function runProgram(run: ProgramRun): Promise<ProgramOutcome> {
  return new Promise<ProgramOutcome>((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn(run.program, run.args, {
        cwd: run.cwd,
        env: run.env,
        stdio: 'pipe',
        // Its own process group, so a timeout also stops whatever the program started.
        detached: true,
        windowsHide: true,
      });
    } catch (error) {
      // spawn throws synchronously for arguments it cannot pass at all (a NUL byte, a bad cwd type).
      resolve({ kind: 'spawn_failed', error });
      return;
    }

    const stdoutAll: Buffer[] = [];
    const stdoutTail = new StderrTail();
    const stderr = new StderrTail();
    const stdoutText = (): string =>
      run.stdout === 'all' ? Buffer.concat(stdoutAll).toString('utf8') : stdoutTail.excerpt();
    let stopReason: 'timeout' | 'aborted' | undefined;
    let graceTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const settle = (outcome: ProgramOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      run.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
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

    const finishStopped = (reason: 'timeout' | 'aborted'): void => {
      if (settled) return;
      // The leader is gone; stragglers in its group get no second chance, and their output no longer matters.
      killGroup('SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      settle({ kind: 'stopped', reason, stdout: stdoutText(), stderr: stderr.excerpt() });
    };

    const stop = (reason: 'timeout' | 'aborted'): void => {
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
    }, run.timeoutMs);
    run.signal.addEventListener('abort', onAbort, { once: true });
    if (run.signal.aborted) onAbort();

    child.stdout.on('data', (chunk: Buffer) => {
      if (run.stdout === 'all') stdoutAll.push(chunk);
      else stdoutTail.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
    });
    // EPIPE/ECONNRESET: the program exited without reading all of its input; its exit status tells the story.
    child.stdin.on('error', () => undefined);
    child.on('error', (error) => {
      // After a successful spawn, 'error' only reports a failed kill, which the exit handling covers.
      if (child.pid === undefined) settle({ kind: 'spawn_failed', error });
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
      settle({ kind: 'exited', code, signal, stdout: stdoutText(), stderr: stderr.excerpt() });
    });

    child.stdin.end(run.stdin ?? '', 'utf8');
  });
}
