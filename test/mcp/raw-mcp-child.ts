import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach } from 'vitest';
import { CLI } from '../helpers/run-cli.js';

const children: ChildProcessWithoutNullStreams[] = [];

const kept: ChildProcessWithoutNullStreams[] = [];
afterAll(() => {
  for (const child of kept.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** One JSON-RPC message as the server wrote it on a line of its stdout. */
export type RawReply = Record<string, unknown>;

/** The built `artifact-ingest mcp` as a child process spoken to line by line over real pipes, no SDK client. */
export interface RawMcpChild {
  readonly child: ChildProcessWithoutNullStreams;
  /** Everything the server wrote on stderr so far. */
  readonly stderr: () => string;
  /** Writes `text` and a newline, waiting for the pipe to drain. */
  readonly sendLine: (text: string) => Promise<void>;
  /** Writes a request as one line and returns the reply with its id. */
  readonly request: (method: string, params?: unknown, id?: number) => Promise<RawReply>;
  /** The next line the server writes, parsed. */
  readonly nextReply: () => Promise<RawReply>;
  /** Writes `bytes` of `fill` (in 1 MiB pieces, never the whole line in memory), then `end` and a newline. */
  readonly sendLong: (start: string, bytes: number, end: string) => Promise<void>;
  /** Closes stdin and waits for the exit code. */
  readonly endInput: () => Promise<number | null>;
  /** The child's peak resident set size in bytes (VmHWM of /proc/<pid>/status). */
  readonly peakRss: () => number;
}

/**
 * Spawns `node [nodeArgs] dist/cli/main.js mcp --project projectDir` and initializes the session, so every
 * test starts with a server ready for requests.
 */
export async function spawnRawMcp(
  projectDir: string,
  nodeArgs: readonly string[] = [],
  options: { readonly keepAcrossTests?: boolean } = {},
): Promise<RawMcpChild> {
  const child = spawn(process.execPath, [...nodeArgs, CLI, 'mcp', '--project', projectDir], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // A child kept across tests is the caller's to end (afterAll); every other one ends with its test.
  if (options.keepAcrossTests === true) kept.push(child);
  else children.push(child);
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => (stderr += text));
  // A server that died makes writes fail; the test sees it from the missing reply and the exit code.
  child.stdin.on('error', () => undefined);
  const replies: RawReply[] = [];
  const waiting: ((reply: RawReply) => void)[] = [];
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (text: string) => {
    pending += text;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const reply = JSON.parse(pending.slice(0, newline)) as RawReply;
      pending = pending.slice(newline + 1);
      const next = waiting.shift();
      if (next === undefined) replies.push(reply);
      else next(reply);
      newline = pending.indexOf('\n');
    }
  });
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      resolve(code);
    }),
  );
  const nextReply = (): Promise<RawReply> => {
    const ready = replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      waiting.push(resolve);
      void exited.then((code) => {
        reject(new Error(`the server exited (code ${String(code)}) before replying; stderr: ${stderr}`));
      });
    });
  };
  const write = (chunk: string | Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (child.stdin.write(chunk)) resolve();
      else child.stdin.once('drain', resolve);
    });
  const sendLine = (text: string): Promise<void> => write(`${text}\n`);
  let nextId = 1000;
  const request = async (method: string, params?: unknown, id = nextId++): Promise<RawReply> => {
    await sendLine(
      JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }),
    );
    return nextReply();
  };
  const sendLong = async (start: string, bytes: number, end: string): Promise<void> => {
    const piece = Buffer.alloc(1024 * 1024, 'x');
    await write(start);
    for (let left = bytes; left > 0; left -= piece.length)
      await write(left >= piece.length ? piece : piece.subarray(0, left));
    await write(`${end}\n`);
  };
  const initialized = await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1.0.0' },
  });
  if (!('result' in initialized)) throw new Error(`initialize failed: ${JSON.stringify(initialized)}`);
  await sendLine(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return {
    child,
    stderr: () => stderr,
    sendLine,
    request,
    nextReply,
    sendLong,
    endInput: () => {
      child.stdin.end();
      return exited;
    },
    peakRss: () => {
      const status = readFileSync(`/proc/${String(child.pid)}/status`, 'utf8');
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(status);
      if (match?.[1] === undefined) throw new Error('no VmHWM in /proc/<pid>/status');
      return Number(match[1]) * 1024;
    },
  };
}
