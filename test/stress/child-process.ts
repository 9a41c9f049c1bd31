/**
 * The stress run's child processes: the built CLI under a time cap (a child that hits it is killed and
 * reported as capped, so the harness never hangs), optionally with a heap cap and its peak RSS sampled.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The built CLI entry point (`npm run stress` builds first). */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** The time cap of a CLI child when none is given: far above any scenario's slowest honest command. */
export const DEFAULT_CAP_MS = 120_000;

/** How a child ended. */
export interface ChildExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Killed by the harness when its time cap ran out (a hang), not by a planned kill. */
  readonly capped: boolean;
  readonly stdout: string;
  /** The last 4 KB of stderr: enough for an OOM's or a crash's message. */
  readonly stderr: string;
  readonly seconds: number;
  /** The child's peak resident set (VmHWM, KiB), sampled while it ran; 0 when not sampled. */
  readonly peakRssKb: number;
}

/** Options of a child: caps, a planned kill, extra environment, RSS sampling. */
export interface ChildOptions {
  /** Kill (SIGKILL) and report `capped` after this long; {@link DEFAULT_CAP_MS} when left out. */
  readonly capMs?: number;
  /** A planned SIGKILL after this long (the kill scenarios); not a hang. */
  readonly killAfterMs?: number;
  /** `--max-old-space-size` for the child, through NODE_OPTIONS (an execArgv flag would reach its workers). */
  readonly heapMb?: number;
  readonly env?: Readonly<Record<string, string>>;
  /** Sample the child's VmHWM from /proc every few milliseconds. */
  readonly sampleRss?: boolean;
}

/** The environment of a child: this one's, the extra variables, and the heap cap in NODE_OPTIONS. */
export function childEnv(options: Pick<ChildOptions, 'env' | 'heapMb'>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
  if (options.heapMb !== undefined) {
    env.NODE_OPTIONS = [env.NODE_OPTIONS, `--max-old-space-size=${String(options.heapMb)}`]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
  }
  return env;
}

/** VmHWM of a live process in KiB, 0 when /proc cannot tell (it exited, or no /proc). */
export function readPeakRssKb(pid: number | undefined): number {
  if (pid === undefined) return 0;
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/mu.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
    return match === null ? 0 : Number(match[1]);
  } catch {
    return 0;
  }
}

/** Keeps the highest VmHWM of a child seen so far (VmHWM only grows, so the last sample is nearly the peak). */
export function sampleRss(child: ChildProcess): { peakKb: () => number; stop: () => void } {
  let peak = 0;
  const sample = (): void => {
    peak = Math.max(peak, readPeakRssKb(child.pid));
  };
  const timer = setInterval(sample, 20);
  sample();
  return {
    peakKb: () => peak,
    stop: () => {
      clearInterval(timer);
    },
  };
}

/** Runs the built CLI with `args` to its end, a planned kill, or its time cap. */
export function runCli(args: readonly string[], options: ChildOptions = {}): Promise<ChildExit> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: childEnv(options),
    });
    let stdout = '';
    let stderr = '';
    let capped = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4096)));
    const rss = options.sampleRss === true ? sampleRss(child) : undefined;
    const planned =
      options.killAfterMs === undefined
        ? undefined
        : setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
    const cap = setTimeout(() => {
      capped = true;
      child.kill('SIGKILL');
    }, options.capMs ?? DEFAULT_CAP_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(planned);
      clearTimeout(cap);
      rss?.stop();
      resolve({
        code,
        signal,
        capped,
        stdout,
        stderr,
        seconds: (performance.now() - started) / 1000,
        peakRssKb: rss?.peakKb() ?? 0,
      });
    });
  });
}
