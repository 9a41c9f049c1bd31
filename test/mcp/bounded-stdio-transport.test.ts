import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BoundedStdioTransport, MAX_MESSAGE_BYTES, MAX_MESSAGE_DEPTH } from '../../src/mcp/index.js';
import { runProgram } from '../helpers/run-cli.js';
import { CLI } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';
import { atScale } from '../helpers/test-scale.js';
import { spawnRawMcp } from './raw-mcp-child.js';
import type { RawMcpChild } from './raw-mcp-child.js';

const MIB = 1024 * 1024;

/** The server still answers: a ping gets its empty result. */
async function expectServing(server: RawMcpChild): Promise<void> {
  expect(await server.request('ping', undefined, 4242)).toEqual({ jsonrpc: '2.0', id: 4242, result: {} });
}

/** The bytes the server has read so far, from any file: rchar of /proc/<pid>/io. */
function bytesRead(server: RawMcpChild): number {
  const io = readFileSync(`/proc/${String(server.child.pid)}/io`, 'utf8');
  const match = /^rchar:\s+(\d+)$/m.exec(io);
  if (match?.[1] === undefined) throw new Error('no rchar in /proc/<pid>/io');
  return Number(match[1]);
}

function errorOf(reply: Record<string, unknown>): { code: number; message: string } {
  expect(reply).toHaveProperty('error');
  return reply.error as { code: number; message: string };
}

// A spawn costs most of a second: tests that leave their server serving (each ends with a ping answered) share one
// per set of node flags. Its project lives as long as the server (tempProject's folders go after each test).
const sharedProjects: string[] = [];
afterAll(async () => {
  await Promise.all(sharedProjects.map((dir) => rm(dir, { recursive: true, force: true })));
});
const sharedServers = new Map<string, Promise<RawMcpChild>>();
function sharedServer(nodeArgs: readonly string[] = []): Promise<RawMcpChild> {
  const key = nodeArgs.join(' ');
  let server = sharedServers.get(key);
  if (server === undefined) {
    server = mkdtemp(path.join(tmpdir(), 'ai-project-')).then((projectDir) => {
      sharedProjects.push(projectDir);
      return spawnRawMcp(projectDir, nodeArgs, { keepAcrossTests: true });
    });
    sharedServers.set(key, server);
  }
  return server;
}

/** `{"a":` n times around 1: JSON nested n + 1 levels, as text (the SDK's client cannot even serialize it). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

describe('artifact-ingest mcp over stdio: malformed lines', () => {
  // Each row: a line, the error code, the id of the reply, and what the message must say.
  const cases: readonly (readonly [string, string, number, string | number | null, RegExp])[] = [
    ['a line that is not JSON', '{not json', -32700, null, /not JSON.*one JSON-RPC message per line/],
    ['a scalar', '42', -32600, null, /a JSON object/],
    [
      'a batch',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
      -32600,
      null,
      /batch.*2025-06-18.*one message per line/,
    ],
    [
      'params that are a string',
      '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":"x"}',
      -32600,
      5,
      /params must be an object/,
    ],
    [
      'params that are an array',
      '{"jsonrpc":"2.0","id":6,"method":"ping","params":[1]}',
      -32602,
      6,
      /params must be an object/,
    ],
    ['a missing method', '{"jsonrpc":"2.0","id":7}', -32600, 7, /method/],
    ['a wrong jsonrpc', '{"jsonrpc":"1.0","id":8,"method":"ping"}', -32600, 8, /"jsonrpc": "2.0"/],
    [
      'a null id',
      '{"jsonrpc":"2.0","id":null,"method":"ping"}',
      -32600,
      null,
      /id must be a string or an integer/,
    ],
    [
      'a method that is a number',
      '{"jsonrpc":"2.0","id":9,"method":1}',
      -32600,
      9,
      /method must be a string/,
    ],
    [
      'an unknown top-level key',
      '{"jsonrpc":"2.0","id":10,"method":"ping","extra":1}',
      -32600,
      10,
      /"extra"/,
    ],
    [
      'tools/call arguments that are a list',
      '{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"workflow_list","arguments":[]}}',
      -32602,
      11,
      /params\.arguments/,
    ],
    [
      'tools/call without a tool name',
      '{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{}}',
      -32602,
      12,
      /params\.name/,
    ],
  ];

  // One server takes every row in turn: each must leave it serving the next (a child per row cost 1.5 s each).
  it.each(cases)(
    'answers %s with a JSON-RPC error and keeps serving',
    async (_name, line, code, id, message) => {
      const server = await sharedServer();
      await server.sendLine(line);
      const reply = await server.nextReply();
      expect(reply).toMatchObject({ jsonrpc: '2.0', id });
      expect(errorOf(reply).code).toBe(code);
      expect(errorOf(reply).message).toMatch(message);
      await expectServing(server);
    },
  );

  it('answers a line that is not UTF-8 with -32700', async () => {
    const server = await sharedServer();
    server.child.stdin.write(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]));
    const reply = await server.nextReply();
    expect(reply).toMatchObject({ id: null, error: { code: -32700 } });
    expect(errorOf(reply).message).toMatch(/UTF-8/);
    await expectServing(server);
  });

  it('answers nothing to a malformed notification but says so on stderr', async () => {
    const server = await sharedServer();
    const stderrBefore = server.stderr().length;
    await server.sendLine('{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}');
    // The next reply is the ping's: the notification got none.
    await expectServing(server);
    // stderr is a pipe of its own: its line may come after the ping's reply.
    await vi.waitFor(
      () => {
        expect(server.stderr().slice(stderrBefore)).toMatch(
          /notifications\/cancelled.*params must be an object/,
        );
      },
      { timeout: 30_000 },
    );
  });

  it('answers every line of many at once, in one write', async () => {
    const server = await sharedServer();
    await server.sendLine(['{bad', '[]', '{"jsonrpc":"2.0","id":1,"method":"ping"}'].join('\n'));
    const replies = [await server.nextReply(), await server.nextReply(), await server.nextReply()];
    expect(replies.map((reply) => reply.id)).toEqual([null, null, 1]);
    await expectServing(server);
  });
});

describe('artifact-ingest mcp over stdio: message size', () => {
  it('reads a 12 MiB message (the SDK transport exited at 10 MiB) with a 64 MiB heap', async () => {
    const server = await sharedServer(['--max-old-space-size=64']);
    await server.sendLong(
      '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":"',
      12 * MIB,
      '"}}}',
    );
    expect(await server.nextReply()).toEqual({ jsonrpc: '2.0', id: 3, result: {} });
    await expectServing(server);
  });

  it('answers a message one byte over the limit with an error naming the limit, and keeps serving', async () => {
    const server = await sharedServer(['--max-old-space-size=64']);
    const stderrBefore = server.stderr().length;
    // The id comes last, as the SDK's client writes it: it is still found in the line's tail.
    const start = '{"jsonrpc":"2.0","method":"ping","params":{"x":"';
    const end = '"},"id":77}';
    await server.sendLong(start, MAX_MESSAGE_BYTES + 1 - start.length - end.length, end);
    const reply = await server.nextReply();
    expect(reply).toMatchObject({ jsonrpc: '2.0', id: 77, error: { code: -32600 } });
    expect(errorOf(reply).message).toMatch(
      /more than 134217728 bytes \(128 MiB\).*discarded unread: send less/,
    );
    await expectServing(server);
    // stderr is a pipe of its own: its line may come after the ping's reply.
    await vi.waitFor(
      () => {
        expect(server.stderr().slice(stderrBefore)).toMatch(/discarded a message of 134217729 bytes/);
      },
      { timeout: 30_000 },
    );
  });

  it('discards an oversized line as it streams: four times the limit never takes four times the memory', async () => {
    // A server of its own: VmHWM is a high-water mark, so a shared server's earlier peaks would hide this one.
    const server = await spawnRawMcp(await tempProject(), ['--max-old-space-size=64']);
    await expectServing(server);
    const before = server.peakRss();
    await server.sendLong(
      '{"jsonrpc":"2.0","id":78,"method":"ping","params":{"x":"',
      4 * MAX_MESSAGE_BYTES,
      '"}}',
    );
    expect(await server.nextReply()).toMatchObject({ id: 78, error: { code: -32600 } });
    await expectServing(server);
    // Up to the limit the line is held (it could still end in time), then dropped: the peak is the limit's
    // worth plus the garbage of the chunks read, never the whole line (a 64 MiB heap could not hold it as text).
    expect(server.peakRss() - before).toBeLessThan(3 * MAX_MESSAGE_BYTES);
  }, 180_000);

  it('answers an oversized line whose id it cannot see with id null', async () => {
    const server = await sharedServer();
    await server.sendLong('[', MAX_MESSAGE_BYTES, ']');
    expect(await server.nextReply()).toMatchObject({ id: null, error: { code: -32600 } });
    await expectServing(server);
  });
});

describe('artifact-ingest mcp over stdio: nesting depth', () => {
  it(`refuses submit_artifact arguments nested 5,000 deep with a field error naming the ${String(MAX_MESSAGE_DEPTH)}-level limit`, async () => {
    const server = await sharedServer();
    const started = await server.request('tools/call', {
      name: 'workflow_start',
      arguments: { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'deep-1' },
    });
    expect(started).toHaveProperty('result.structuredContent.run_id', 'deep-1');
    await server.sendLine(
      `{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"submit_artifact","arguments":{"type":"development_result","payload":{"outcome":${nested(5000)}}}}}`,
    );
    const reply = await server.nextReply();
    expect(reply).toMatchObject({ id: 21, result: { isError: true } });
    const [text, json] = (reply.result as { content: { text: string }[] }).content;
    expect(text?.text).toMatch(
      /^The development_result artifact was refused: 1 field to fix\.\n- outcome\.a\.a/,
    );
    expect(text?.text).toMatch(/nested at most 64 levels deep/);
    expect(JSON.parse(json?.text ?? '')).toMatchObject({
      code: 'invalid_artifact',
      errors: [{ path: expect.stringMatching(/^outcome(\.a){60}$/) as string }],
    });
    expect(JSON.stringify(reply)).not.toMatch(/call stack/);
    await expectServing(server);
  });

  it('refuses other tool arguments nested too deep with an isError result naming the argument path', async () => {
    const server = await sharedServer();
    await server.sendLine(
      `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"workflow_start","arguments":{"workflow":"chain_of_thought","inputs":{"problem":${nested(100)}}}}}`,
    );
    const reply = await server.nextReply();
    expect(reply).toMatchObject({ id: 22, result: { isError: true } });
    const [text] = (reply.result as { content: { text: string }[] }).content;
    expect(text?.text).toMatch(
      /^Invalid arguments for tool workflow_start: inputs\.problem(\.a){60} is nested more than 64 levels deep/,
    );
    await expectServing(server);
  });

  it('refuses other requests nested too deep with -32602, and a line nested a million deep without parsing it', async () => {
    const server = await sharedServer(['--max-old-space-size=64']);
    await server.sendLine(
      `{"jsonrpc":"2.0","id":23,"method":"ping","params":{"_meta":{"x":${nested(1_000_000)}}}}`,
    );
    const reply = await server.nextReply();
    expect(reply).toMatchObject({ id: 23, error: { code: -32602 } });
    expect(errorOf(reply).message).toMatch(/params\._meta\.x(\.a){61} is nested more than 64 levels deep/);
    await expectServing(server);
  });
});

describe('artifact-ingest mcp over stdio: a client that does not read', () => {
  // 600 replies of 64 KiB are 39 MB, more than twice the 16 MiB the server lets wait; the scale run sends 231 MB,
  // more than its heap could hold if it read every request.
  const count = atScale(600, 3600);
  it(`stops reading requests while 16 MiB of replies wait unread, then answers all ${String(count)}, with a 192 MiB heap`, async () => {
    const server = await spawnRawMcp(await tempProject(), ['--max-old-space-size=192']);
    await expectServing(server);
    server.child.stdout.pause();
    // A tool the server does not have is answered with its 64 KiB name. (The server's live heap in this test
    // measured about 105 MB with 16 MiB of replies waiting: 128 MiB left it no room.)
    const name = 'n'.repeat(64 * 1024);
    const lines = Array.from(
      { length: count },
      (_, index) =>
        `{"jsonrpc":"2.0","id":${String(index + 1)},"method":"tools/call","params":{"name":"${name}","arguments":{}}}\n`,
    ).join('');
    // Taken, or the server read nothing more for a second (its rchar in /proc/<pid>/io stood still) with requests
    // still waiting in the pipe: it stopped reading. This once waited a fixed 5 s; a server that does not stop
    // reads on without pause (and drains), so only a machine too loaded to run it for a second can end the wait
    // early, and then the check passes falsely, never fails falsely.
    const drained = new Promise<boolean>((resolve) => {
      let read = bytesRead(server);
      let still = 0;
      const poll = setInterval(() => {
        const now = bytesRead(server);
        still = now === read ? still + 1 : 0;
        read = now;
        if (still < 10) return;
        clearInterval(poll);
        resolve(false);
      }, 100);
      const taken = (): void => {
        clearInterval(poll);
        resolve(true);
      };
      if (server.child.stdin.write(lines)) taken();
      else server.child.stdin.once('drain', taken);
    });
    // Still not taken: the server stopped reading (the requests wait in the pipe).
    expect(await drained).toBe(false);
    server.child.stdout.resume();
    const ids = new Set<unknown>();
    for (let index = 0; index < count; index++) {
      const reply = await server.nextReply();
      expect(reply).toHaveProperty('result.isError', true);
      ids.add(reply.id);
    }
    expect(ids.size).toBe(count);
    await expectServing(server);
  }, 180_000);
});

describe('artifact-ingest mcp over stdio: end of input', () => {
  it('answers what it has read when stdin closes, then exits 0', async () => {
    const projectDir = await tempProject();
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'pipe', version: '1' } },
    };
    const list = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'workflow_list', arguments: {} },
    };
    const input = [init, { jsonrpc: '2.0', method: 'notifications/initialized' }, list, '{bad']
      .map((message) => (typeof message === 'string' ? message : JSON.stringify(message)))
      .join('\n');
    // The last line has no newline: it is still read (and refused) at the end of input.
    const result = await runProgram(process.execPath, [CLI, 'mcp', '--project', projectDir], { input });
    expect(result.code).toBe(0);
    const replies = result.stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // The refusal of the last line is written at once, the tool's result when the tool is done.
    expect(replies.map((reply) => reply.id).sort()).toEqual([1, 2, null]);
    expect(replies.find((reply) => reply.id === 2)).toHaveProperty('result.structuredContent.workflows');
  });
});

describe('BoundedStdioTransport in process', () => {
  it('answers a request -32603 when handing it on throws at once, and is not left waiting for it', async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const logs: string[] = [];
    const transport = new BoundedStdioTransport({ stdin, stdout, log: (line) => logs.push(line) });
    transport.onmessage = () => {
      throw new Error('boom');
    };
    await transport.start();
    stdin.end('{"jsonrpc":"2.0","id":9,"method":"ping"}\n');
    // stdin ended and the request was answered: the transport closes by itself.
    await transport.closed;
    const reply = JSON.parse(String(stdout.read())) as Record<string, unknown>;
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 9,
      error: { code: -32603, message: 'internal error: boom' },
    });
    expect(logs.join('\n')).toMatch(/internal error while handing on a message: boom/);
  });
});
