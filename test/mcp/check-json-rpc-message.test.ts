import { describe, expect, it } from 'vitest';
import { checkJsonRpcMessage } from '../../src/mcp/check-json-rpc-message.js';

describe('checkJsonRpcMessage', () => {
  // Each row: a parsed line, then what it is refused as (kind, id, code) and a part of the message.
  const refused: readonly (readonly [string, unknown, string, string | number | null, number, RegExp])[] = [
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], 'unknown', null, -32600, /batch/],
    ['null', null, 'unknown', null, -32600, /got null/],
    ['a string', 'ping', 'unknown', null, -32600, /got a string/],
    ['no method, result or error', { jsonrpc: '2.0', id: 4 }, 'unknown', 4, -32600, /no method/],
    ['a float id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, 'request', null, -32600, /the number 1.5/],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'ping' }, 'request', null, -32600, /got an object/],
    [
      'no jsonrpc',
      { id: 2, method: 'ping' },
      'request',
      2,
      -32600,
      /"jsonrpc": "2.0" is required, got nothing/,
    ],
    [
      'a string params',
      { jsonrpc: '2.0', id: 3, method: 'ping', params: 'x' },
      'request',
      3,
      -32600,
      /got a string/,
    ],
    ['a list params', { jsonrpc: '2.0', id: 3, method: 'ping', params: [] }, 'request', 3, -32602, /by name/],
    ['null params', { jsonrpc: '2.0', method: 'x', params: null }, 'notification', null, -32600, /got null/],
    [
      'a bad _meta',
      { jsonrpc: '2.0', id: 'a', method: 'ping', params: { _meta: 5 } },
      'request',
      'a',
      -32602,
      /params\._meta/,
    ],
    [
      'a tool name that is a number',
      { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 1 } },
      'request',
      6,
      -32602,
      /"tools\/call" message.*params\.name/,
    ],
    [
      'a progress notification without its token',
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } },
      'notification',
      null,
      -32602,
      /params\.progressToken/,
    ],
    ['a response without an id', { jsonrpc: '2.0', result: {} }, 'response', null, -32600, /id/],
    [
      'a response with extra keys',
      { jsonrpc: '2.0', id: 1, result: {}, x: 1 },
      'response',
      1,
      -32600,
      /unknown keys "x"/,
    ],
  ];

  it.each(refused)('refuses %s', (_name, value, kind, id, code, message) => {
    const check = checkJsonRpcMessage(value);
    expect(check).toMatchObject({ ok: false, kind, id, code });
    expect(check.ok ? '' : check.message).toMatch(message);
  });

  // Each row: a message the server takes, and what kind it is.
  const accepted: readonly (readonly [unknown, string])[] = [
    [{ jsonrpc: '2.0', id: 1, method: 'ping' }, 'request'],
    [
      { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { name: 'workflow_list', arguments: {} } },
      'request',
    ],
    [{ jsonrpc: '2.0', id: 2, method: 'no/such/method', params: { anything: [1] } }, 'request'],
    [{ jsonrpc: '2.0', method: 'notifications/initialized' }, 'notification'],
    [{ jsonrpc: '2.0', id: 3, result: {} }, 'response'],
    [{ jsonrpc: '2.0', id: 4, error: { code: -1, message: 'no' } }, 'response'],
  ];

  it.each(accepted)('takes %j', (value, kind) => {
    expect(checkJsonRpcMessage(value)).toMatchObject({ ok: true, kind, message: value });
  });
});
