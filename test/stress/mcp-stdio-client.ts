/**
 * A raw JSON-RPC client of `artifact-ingest mcp` over the child's stdio (newline-delimited messages, as the
 * SDK's stdio transport frames them): no SDK client in between, so the harness controls every byte and every
 * kill. Each call has a time cap; a server that does not answer within it is killed and the call is `capped`.
 */
import { spawn } from 'node:child_process';
import { CLI, childEnv, sampleRss } from './child-process.js';

/** What a call got: the tool's result, a server that died before answering, or no answer within the cap. */
export type CallOutcome =
  | {
      readonly kind: 'result';
      readonly isError: boolean;
      /** The result's structuredContent, or the JSON of its first text item, when it is an object. */
      readonly value: Readonly<Record<string, unknown>>;
      /** The first text item (an error's message). */
      readonly text: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'died';
      readonly ms: number;
      /** How the server ended (an exit code, or the signal that ended it). */
      readonly exit: string;
    }
  | { readonly kind: 'capped'; readonly ms: number };

/** One server process and the client end of its stdio. */
export interface McpServerProcess {
  readonly pid: number | undefined;
  /** `initialize` then `notifications/initialized`; the outcome of the handshake. */
  initialize(capMs?: number): Promise<CallOutcome>;
  /** `tools/call` of `tool` with `args`. */
  call(tool: string, args: Readonly<Record<string, unknown>>, capMs?: number): Promise<CallOutcome>;
  /** SIGKILL now (a planned kill). */
  kill(): void;
  /** Ends stdin (the server's signal to stop) and waits for the exit, killing it after `capMs`. */
  close(capMs?: number): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** The peak RSS sampled so far (KiB), when started with `sampleRss`. */
  peakRssKb(): number;
}

/** Options of {@link startMcpServer}. */
export interface McpServerOptions {
  readonly env?: Readonly<Record<string, string>>;
  readonly heapMb?: number;
  readonly sampleRss?: boolean;
}

/** The default time cap of one call: far above any honest call of the stress scenarios. */
const CALL_CAP_MS = 60_000;

/** Starts `artifact-ingest mcp --project <projectDir>` as a child process. */
export function startMcpServer(projectDir: string, options: McpServerOptions = {}): McpServerProcess {
  const child = spawn(process.execPath, [CLI, 'mcp', '--project', projectDir], {
    stdio: ['pipe', 'pipe', 'ignore'],
    env: childEnv(options),
  });
  const rss = options.sampleRss === true ? sampleRss(child) : undefined;
  const pending = new Map<number, (message: Record<string, unknown> | undefined) => void>();
  let nextId = 0;
  let gone = false;
  let exit = 'exit unknown';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      gone = true;
      exit = signal ?? `exit ${String(code)}`;
      rss?.stop();
      // Every call still waiting learns that no answer will come.
      for (const settle of pending.values()) settle(undefined);
      pending.clear();
      resolve({ code, signal });
    });
  });
  child.on('error', () => undefined);
  child.stdin.on('error', () => undefined);
  readLines(child.stdout, (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof message !== 'object' || message === null) return;
    const id = (message as { id?: unknown }).id;
    if (typeof id !== 'number') return;
    pending.get(id)?.(message as Record<string, unknown>);
    pending.delete(id);
  });

  const request = (
    method: string,
    params: Readonly<Record<string, unknown>>,
    capMs: number,
  ): Promise<{ message: Record<string, unknown> | undefined; capped: boolean; ms: number }> =>
    new Promise((resolve) => {
      const started = performance.now();
      if (gone) {
        resolve({ message: undefined, capped: false, ms: 0 });
        return;
      }
      nextId += 1;
      const id = nextId;
      const cap = setTimeout(() => {
        pending.delete(id);
        child.kill('SIGKILL');
        resolve({ message: undefined, capped: true, ms: performance.now() - started });
      }, capMs);
      pending.set(id, (message) => {
        clearTimeout(cap);
        resolve({ message, capped: false, ms: performance.now() - started });
      });
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });

  return {
    pid: child.pid,
    async initialize(capMs = CALL_CAP_MS) {
      const answer = await request(
        'initialize',
        {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'artifact-ingest-stress', version: '1' },
        },
        capMs,
      );
      if (answer.message !== undefined && !gone) {
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      }
      return outcomeOf(answer, exit);
    },
    async call(tool, args, capMs = CALL_CAP_MS) {
      const answer = await request('tools/call', { name: tool, arguments: args }, capMs);
      return outcomeOf(answer, exit);
    },
    kill() {
      child.kill('SIGKILL');
    },
    async close(capMs = 10_000) {
      child.stdin.end();
      const cap = setTimeout(() => child.kill('SIGKILL'), capMs);
      const exit = await exited;
      clearTimeout(cap);
      return exit;
    },
    exited,
    peakRssKb: () => rss?.peakKb() ?? 0,
  };
}

/** Calls `onLine` with each newline-terminated line, joining chunks only when a line ends (a 16 MB answer). */
function readLines(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  let parts: string[] = [];
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    let at = chunk.indexOf('\n');
    if (at === -1) {
      parts.push(chunk);
      return;
    }
    let rest = chunk;
    while (at !== -1) {
      parts.push(rest.slice(0, at));
      onLine(parts.join(''));
      parts = [];
      rest = rest.slice(at + 1);
      at = rest.indexOf('\n');
    }
    if (rest !== '') parts.push(rest);
  });
}

function outcomeOf(
  answer: { message: Record<string, unknown> | undefined; capped: boolean; ms: number },
  exit: string,
): CallOutcome {
  if (answer.capped) return { kind: 'capped', ms: answer.ms };
  if (answer.message === undefined) return { kind: 'died', ms: answer.ms, exit };
  const result = answer.message.result as
    | { isError?: boolean; structuredContent?: unknown; content?: { type?: string; text?: string }[] }
    | undefined;
  // A JSON-RPC error (no result) is a refusal too: the server answered.
  if (result === undefined) {
    const error = answer.message.error as { message?: string } | undefined;
    return { kind: 'result', isError: true, value: {}, text: error?.message ?? '', ms: answer.ms };
  }
  const text = result.content?.find((item) => item.type === 'text')?.text ?? '';
  return {
    kind: 'result',
    isError: result.isError === true,
    value: objectOf(result.structuredContent) ?? objectOf(parseJson(text)) ?? {},
    text,
    ms: answer.ms,
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function objectOf(value: unknown): Readonly<Record<string, unknown>> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
