import { describe, expect, it } from 'vitest';
import { edgeRequestId } from '../../src/mcp/edge-request-id.js';

describe('edgeRequestId', () => {
  // Each row: the first bytes kept of a line, its last bytes, and the id found.
  const cases: readonly (readonly [string, string, string | number | null])[] = [
    ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"x":"', 'xxx"}}', 5],
    ['{"id":"a-1","jsonrpc":"2.0"', 'xx"}}', 'a-1'],
    ['{"method":"tools/call","params":{"arguments":{"output":"', 'xxx"}},"jsonrpc":"2.0","id":77}', 77],
    ['{"method":"ping","params":{"x":"', 'x","id":3}}', null],
    ['{"method":"ping","params":{"x":"', 'xxx"}}', null],
    ['[', ']', null],
    ['{"jsonrpc":"2.0","id":1.5,', '}', null],
    ['{"jsonrpc":"2.0","id":null,', '}', null],
  ];

  it.each(cases)('finds the id of %s ... %s', (head, tail, id) => {
    expect(edgeRequestId(Buffer.from(head), Buffer.from(tail))).toBe(id);
  });
});
