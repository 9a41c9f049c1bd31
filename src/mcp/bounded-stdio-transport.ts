import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { CallToolResult, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { formatFieldPath } from '../contracts/index.js';
import { describeError } from '../project/index.js';
import { checkJsonRpcMessage } from './check-json-rpc-message.js';
import type { RefusedMessage } from './check-json-rpc-message.js';
import { deepArgumentsResult } from './deep-arguments-result.js';
import { edgeRequestId } from './edge-request-id.js';
import { LineReader } from './line-reader.js';
import type { OversizedLine } from './line-reader.js';
import {
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_DEPTH,
  MAX_PENDING_OUTPUT_BYTES,
  MAX_REQUESTS_IN_FLIGHT,
  MAX_SENT_BYTES,
} from './mcp-limits.js';
import { scanJsonNesting } from './scan-json-nesting.js';

/** A line read and waiting to be handled: a whole line, or the edges of one too long to keep. */
type ReadLine = { readonly line: Buffer } | { readonly oversized: OversizedLine };

/** Where the transport reads and writes, and where it reports what it refused. */
export interface BoundedStdioTransportOptions {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  /** Diagnostics (refused notifications, discarded lines); default stderr. */
  readonly log?: (line: string) => void;
}

/**
 * The MCP stdio transport of `artifact-ingest mcp`, in place of the SDK's `StdioServerTransport`: newline-
 * delimited messages read in linear time; a line over `MAX_MESSAGE_BYTES` discarded as it streams; JSON nested
 * deeper than `MAX_MESSAGE_DEPTH` cut before it is parsed; every request answered, a malformed one with its
 * JSON-RPC error (-32700, -32600, -32602) instead of the SDK's silence; replies written with back-pressure; at
 * the end of stdin, every request read is answered before the transport closes (docs/mcp.md, "Limits").
 */
export class BoundedStdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: Transport['onmessage'];

  /** Settles once the transport has closed: stdin ended and every request read was answered, or stdout failed. */
  readonly closed: Promise<void>;

  readonly #stdin: Readable;
  readonly #stdout: Writable;
  readonly #log: (line: string) => void;
  readonly #reader: LineReader;
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  /** Requests handed to the server and not yet answered: at most `MAX_REQUESTS_IN_FLIGHT`; stdin's end waits. */
  readonly #unanswered = new Set<RequestId>();
  /** Lines read but not yet handled, while the server is busy (stdin is paused meanwhile). */
  #queue: ReadLine[] = [];
  #queueStart = 0;
  #handlingQueue = false;
  readonly #waitingForDrain: (() => void)[] = [];
  #started = false;
  #inputEnded = false;
  #isClosed = false;
  #markClosed: () => void = () => undefined;

  constructor(options: BoundedStdioTransportOptions = {}) {
    this.#stdin = options.stdin ?? process.stdin;
    this.#stdout = options.stdout ?? process.stdout;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#reader = new LineReader(MAX_MESSAGE_BYTES, {
      line: (line) => this.#queue.push({ line }),
      oversized: (oversized) => this.#queue.push({ oversized }),
    });
    this.closed = new Promise((resolve) => (this.#markClosed = resolve));
  }

  /** Starts reading stdin (the server's `connect` calls it). */
  start(): Promise<void> {
    if (this.#started) throw new Error('BoundedStdioTransport already started');
    this.#started = true;
    this.#stdin.on('data', this.#onData);
    this.#stdin.on('end', this.#onEnd);
    this.#stdin.on('error', this.#onInputError);
    this.#stdout.on('error', this.#onOutputError);
    return Promise.resolve();
  }

  /** Writes one message as a line; settles when stdout has taken it (after a 'drain' for a slow client). */
  async send(message: JSONRPCMessage): Promise<void> {
    if (this.#isClosed) return;
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    let line: string;
    try {
      line = `${JSON.stringify(message)}\n`;
    } catch (error) {
      line = this.#unsendable(message, `it could not be serialized (${describeError(error)})`);
    }
    if (line.length > MAX_SENT_BYTES / 3 && Buffer.byteLength(line, 'utf8') > MAX_SENT_BYTES) {
      line = this.#unsendable(
        message,
        `it is ${String(Buffer.byteLength(line, 'utf8'))} bytes, more than the ${String(MAX_SENT_BYTES)} a reply may be`,
      );
    }
    const written = this.#write(line);
    if (id !== undefined && this.#unanswered.delete(id)) this.#handleQueue();
    await written;
  }

  /** Stops reading and lets go of stdin and stdout; the server's `close` calls it. */
  close(): Promise<void> {
    if (this.#isClosed) return Promise.resolve();
    this.#isClosed = true;
    this.#stdin.off('data', this.#onData);
    this.#stdin.off('end', this.#onEnd);
    this.#stdin.off('error', this.#onInputError);
    this.#stdout.off('error', this.#onOutputError);
    this.#stdout.off('drain', this.#onDrain);
    if (this.#stdin.listenerCount('data') === 0) this.#stdin.pause();
    for (const resolve of this.#waitingForDrain.splice(0)) resolve();
    this.onclose?.();
    this.#markClosed();
    return Promise.resolve();
  }

  readonly #onData = (chunk: Buffer | string): void => {
    this.#guard(() => {
      this.#reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    });
    this.#handleQueue();
  };

  readonly #onEnd = (): void => {
    this.#guard(() => {
      this.#reader.end();
    });
    this.#inputEnded = true;
    this.#handleQueue();
  };

  readonly #onInputError = (error: Error): void => {
    this.#log(`stdin failed: ${error.message}; closing`);
    this.onerror?.(error);
    void this.close();
  };

  readonly #onOutputError = (error: Error): void => {
    // The client stopped reading (EPIPE): nothing more can be answered.
    this.#log(`stdout failed: ${error.message}; closing`);
    this.onerror?.(error);
    void this.close();
  };

  /**
   * Handles the lines read, in order, while the server is not busy: fewer than `MAX_REQUESTS_IN_FLIGHT` requests
   * unanswered and no more than `MAX_PENDING_OUTPUT_BYTES` of replies unread. While it is, stdin is paused, so a
   * client can make the server hold only so much work and so many replies, however much it sends.
   */
  #handleQueue(): void {
    // A reply sent while a line is handled (the SDK answers an unknown method at once) must not nest.
    if (this.#handlingQueue || this.#isClosed) return;
    this.#handlingQueue = true;
    try {
      while (this.#queueStart < this.#queue.length && !this.#isBusy()) {
        const next = this.#queue[this.#queueStart++];
        this.#guard(() => {
          if (next === undefined) return;
          if ('line' in next) this.#readLine(next.line);
          else this.#refuseOversized(next.oversized);
        });
      }
    } finally {
      this.#handlingQueue = false;
    }
    const waiting = this.#queueStart < this.#queue.length;
    if (!waiting) {
      this.#queue = [];
      this.#queueStart = 0;
    }
    // A line handled above may have closed the transport (stdout failed): then stdin stays as close() left it.
    if (this.#hasClosed()) return;
    if (waiting) this.#stdin.pause();
    else if (this.#inputEnded) this.#closeWhenDone();
    else this.#stdin.resume();
  }

  #hasClosed(): boolean {
    return this.#isClosed;
  }

  #isBusy(): boolean {
    return (
      this.#unanswered.size >= MAX_REQUESTS_IN_FLIGHT ||
      this.#stdout.writableLength > MAX_PENDING_OUTPUT_BYTES
    );
  }

  /** Runs a step of reading so that nothing a client sends can throw out of the transport. */
  #guard(step: () => void): void {
    try {
      step();
    } catch (error) {
      this.#log(`internal error while reading a message: ${describeError(error)}`);
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #readLine(bytes: Buffer): void {
    let text: string;
    try {
      text = this.#decoder.decode(bytes);
    } catch {
      this.#replyError(
        null,
        ErrorCode.ParseError,
        'the line is not valid UTF-8: send each message as UTF-8 JSON on one line',
      );
      return;
    }
    if (text.endsWith('\r')) text = text.slice(0, -1);
    if (text.trim() === '') return;
    const deep = scanJsonNesting(text, MAX_MESSAGE_DEPTH);
    let value: unknown;
    try {
      value = JSON.parse(deep?.pruned ?? text);
    } catch (error) {
      const reason = describeError(error).slice(0, 200);
      this.#replyError(
        null,
        ErrorCode.ParseError,
        `the line is not JSON (${reason}): send one JSON-RPC message per line`,
      );
      return;
    }
    const check = checkJsonRpcMessage(value);
    if (!check.ok) {
      this.#refuse(check);
      return;
    }
    if (deep !== undefined) {
      this.#refuseDeep(check.message, deep.path);
      return;
    }
    const { message } = check;
    if ('id' in message && 'method' in message) this.#unanswered.add(message.id);
    // The SDK never answers a cancelled request: stdin's end must not wait for it.
    if ('method' in message && !('id' in message) && message.method === 'notifications/cancelled') {
      const cancelled: unknown = message.params?.requestId;
      if (typeof cancelled === 'string' || typeof cancelled === 'number') this.#unanswered.delete(cancelled);
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      // The SDK handles a message asynchronously; should it throw at once, the request still gets its answer.
      this.#log(`internal error while handing on a message: ${describeError(error)}`);
      if ('id' in message && 'method' in message && this.#unanswered.delete(message.id))
        this.#replyError(message.id, ErrorCode.InternalError, `internal error: ${describeError(error)}`);
    }
  }

  #refuse(refused: RefusedMessage): void {
    if (refused.kind === 'notification' || refused.kind === 'response') {
      // JSON-RPC answers neither: the one place to say so is the log.
      const what =
        refused.method === undefined
          ? 'a response'
          : `a notification ${JSON.stringify(refused.method.slice(0, 100))}`;
      this.#log(`refused ${what}: ${refused.message}`);
      return;
    }
    this.#replyError(refused.id, refused.code, refused.message);
  }

  #refuseDeep(message: JSONRPCMessage, path: readonly (string | number)[]): void {
    const where = formatFieldPath(path);
    if (!('id' in message && 'method' in message)) {
      this.#log(`refused a message nested too deep at ${where}: at most ${String(MAX_MESSAGE_DEPTH)} levels`);
      return;
    }
    const params: Record<string, unknown> = message.params ?? {};
    const tool = params.name;
    if (message.method === 'tools/call' && path[1] === 'arguments' && typeof tool === 'string') {
      const result: CallToolResult = deepArgumentsResult(tool, path.slice(2), params.arguments);
      void this.#write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, result })}\n`);
      return;
    }
    this.#replyError(
      message.id,
      ErrorCode.InvalidParams,
      `${where} is nested more than ${String(MAX_MESSAGE_DEPTH)} levels deep (objects and arrays, counted from the message): send it flatter`,
    );
  }

  #refuseOversized(line: OversizedLine): void {
    const id = edgeRequestId(line.head, line.tail);
    this.#log(
      `discarded a message of ${String(line.bytes)} bytes (more than ${String(MAX_MESSAGE_BYTES)}), id ${JSON.stringify(id)}`,
    );
    this.#replyError(
      id,
      ErrorCode.InvalidRequest,
      `the message is more than ${String(MAX_MESSAGE_BYTES)} bytes (${String(MAX_MESSAGE_BYTES / 1024 / 1024)} MiB), the most one line may hold; it was discarded unread: send less in one call (workflow_advance takes an output of up to 16 MiB; split long register_artefacts lists)`,
    );
  }

  #replyError(id: RequestId | null, code: number, message: string): void {
    void this.#write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  /** A line answering `message` with -32603 when `message` itself cannot be sent; dropped if it is no reply. */
  #unsendable(message: JSONRPCMessage, why: string): string {
    if (!('id' in message) || 'method' in message) {
      this.#log(`dropped an outgoing message: ${why}`);
      return '';
    }
    this.#log(`replaced the reply to ${JSON.stringify(message.id)}: ${why}`);
    const text = `the reply could not be sent: ${why}. Nothing was undone: call workflow_status to see where the run is`;
    return `${JSON.stringify({ jsonrpc: '2.0', id: message.id, error: { code: ErrorCode.InternalError, message: text } })}\n`;
  }

  #write(line: string): Promise<void> {
    if (this.#isClosed || line === '') return Promise.resolve();
    if (this.#stdout.write(line)) return Promise.resolve();
    if (this.#waitingForDrain.length === 0) this.#stdout.once('drain', this.#onDrain);
    return new Promise((resolve) => this.#waitingForDrain.push(resolve));
  }

  readonly #onDrain = (): void => {
    for (const resolve of this.#waitingForDrain.splice(0)) resolve();
    // The client caught up: the lines that waited for it are handled now.
    this.#handleQueue();
  };

  #closeWhenDone(): void {
    if (this.#inputEnded && this.#unanswered.size === 0 && this.#queueStart >= this.#queue.length)
      void this.close();
  }
}
