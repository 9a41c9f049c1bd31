import { describe, expect, it } from 'vitest';
import { runProgram, type ProgramRun } from '../../../src/runtime/agents/run-program.js';

function program(args: readonly string[], extra: Partial<ProgramRun> = {}): ProgramRun {
  return {
    program: process.execPath,
    args,
    env: { PATH: process.env.PATH ?? '' },
    timeoutMs: 10_000,
    killGraceMs: 200,
    signal: new AbortController().signal,
    stdout: 'tail',
    ...extra,
  };
}

/** True once no process has `pid` (polled for up to 5 s: a killed process is reaped a moment later). */
async function isGone(pid: number): Promise<boolean> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

describe('runProgram', () => {
  it('reports the exit status and the output of a real child process', async () => {
    const outcome = await runProgram(
      program(['-e', 'process.stdout.write("out\\n"); process.stderr.write("err\\n"); process.exit(3)']),
    );
    expect(outcome).toEqual({ kind: 'exited', code: 3, signal: null, stdout: 'out', stderr: 'err' });
  });

  it('keeps every byte of stdout when asked, and passes stdin', async () => {
    const outcome = await runProgram(
      program(['-e', 'process.stdin.pipe(process.stdout)'], { stdout: 'all', stdin: 'a\n\nb\n' }),
    );
    expect(outcome).toMatchObject({ kind: 'exited', code: 0, stdout: 'a\n\nb\n' });
  });

  it('keeps only the last lines of a long output in tail mode', async () => {
    const outcome = await runProgram(
      program(['-e', 'for (let i = 0; i < 5000; i++) console.log("line " + i)']),
    );
    expect(outcome.kind).toBe('exited');
    if (outcome.kind !== 'exited') return;
    expect(outcome.stdout.split('\n')).toHaveLength(20);
    expect(outcome.stdout.endsWith('line 4999')).toBe(true);
  });

  it('stops a program that outlives its timeout, with its process group', async () => {
    // The program and a grandchild print their pids; both must be gone once the outcome is a timeout.
    const script = [
      'const { spawn } = require("node:child_process");',
      'const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], { stdio: "ignore" });',
      'process.stderr.write(process.pid + " " + child.pid + "\\n");',
      'setTimeout(() => {}, 60000);',
    ].join('\n');
    const outcome = await runProgram(program(['-e', script], { timeoutMs: 1000 }));
    expect(outcome).toMatchObject({ kind: 'stopped', reason: 'timeout' });
    if (outcome.kind !== 'stopped') return;
    const pids = /(\d+) (\d+)/.exec(outcome.stderr)?.slice(1).map(Number) ?? [];
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await isGone(pid)).toBe(true);
  });

  it('stops a program when its signal aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => {
      controller.abort();
    }, 100);
    const outcome = await runProgram(
      program(['-e', 'setTimeout(() => {}, 60000)'], { signal: controller.signal }),
    );
    expect(outcome).toMatchObject({ kind: 'stopped', reason: 'aborted' });
  });

  it('reports a program that cannot start, never throwing', async () => {
    const outcome = await runProgram({ ...program([]), program: 'no-such-program-artifact-ingest' });
    expect(outcome.kind).toBe('spawn_failed');
  });
});
