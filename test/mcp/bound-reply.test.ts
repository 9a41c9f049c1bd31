import { describe, expect, it } from 'vitest';
import { boundReply, boundToolError } from '../../src/mcp/bound-reply.js';
import { MAX_REPLY_BYTES, MAX_REPLY_ITEMS } from '../../src/mcp/index.js';
import { toolResult } from '../../src/mcp/index.js';

/** The bytes a result takes in its JSON-RPC line. */
function bytesOf(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

const paths = (count: number, prefix = 'src/file-'): string[] =>
  Array.from({ length: count }, (_, index) => `${prefix}${String(index)}.ts`);

describe('boundReply', () => {
  it('returns a value that fits as it is, without left_out', () => {
    const value = { run_id: 'r', registered: paths(10), duplicates: [], invalid: [] };
    expect(boundReply(value)).toBe(value);
  });

  it('keeps the first MAX_REPLY_ITEMS of each list and counts the rest in left_out, by path', () => {
    const value = {
      run_id: 'r',
      artefacts: paths(MAX_REPLY_ITEMS + 5),
      reconciliation: { unregistered: paths(MAX_REPLY_ITEMS + 1, 'u/'), phantom: paths(3, 'p/') },
    };
    const bounded = boundReply(value) as typeof value & { left_out: Record<string, number> };
    expect(bounded.artefacts).toEqual(value.artefacts.slice(0, MAX_REPLY_ITEMS));
    expect(bounded.reconciliation.unregistered).toHaveLength(MAX_REPLY_ITEMS);
    expect(bounded.reconciliation.phantom).toEqual(value.reconciliation.phantom);
    expect(bounded.left_out).toEqual({ artefacts: 5, 'reconciliation.unregistered': 1 });
    // Keys keep their order.
    expect(Object.keys(bounded)).toEqual(['run_id', 'artefacts', 'reconciliation', 'left_out']);
  });

  it('shortens the long texts of a value too large for one reply, with a note, until the result fits', () => {
    const output = 'x'.repeat(7_000_000);
    const value = {
      run_id: 'r',
      instructions: `Analyze: ${output}`,
      summary: { results: { decomposition: output, analysis: ['short', output] } },
    };
    const bounded = boundReply(value) as typeof value & { left_out: Record<string, number> };
    expect(bytesOf(toolResult(value))).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    expect(bounded.instructions).toMatch(
      /^Analyze: x+… \[\d+ more characters left out: an MCP reply holds at most 4194304 bytes\]$/,
    );
    expect(bounded.summary.results.analysis[0]).toBe('short');
    expect(Object.keys(bounded.left_out).sort()).toEqual([
      'instructions',
      'summary.results.analysis[1]',
      'summary.results.decomposition',
    ]);
    const kept = bounded.summary.results.decomposition.indexOf('…');
    expect(bounded.left_out['summary.results.decomposition']).toBe(output.length - kept);
  });

  it('counts escapes: a text of control characters (6 bytes each in JSON) fits too', () => {
    const value = { instructions: '\u0001'.repeat(3_000_000) };
    expect(bytesOf(toolResult(value))).toBeLessThanOrEqual(MAX_REPLY_BYTES);
  });

  it('never cuts a path: 1,000 paths of 4,000 characters lose items instead', () => {
    const long = paths(MAX_REPLY_ITEMS).map((name) => `${'d/'.repeat(1990)}${name}`.slice(-4000));
    const bounded = boundReply({ registered: long }) as {
      registered: string[];
      left_out: Record<string, number>;
    };
    expect(bytesOf(toolResult({ registered: long }))).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    expect(bounded.registered.every((entry, index) => entry === long[index])).toBe(true);
    expect(bounded.left_out.registered).toBe(MAX_REPLY_ITEMS - bounded.registered.length);
  });

  it('keeps a key named __proto__ as a key', () => {
    const value = JSON.parse(
      `{"results":{"__proto__":${JSON.stringify(paths(MAX_REPLY_ITEMS + 1))}}}`,
    ) as object;
    expect(JSON.stringify(boundReply(value))).toMatch(/^\{"results":\{"__proto__":\["src\/file-0\.ts"/);
  });
});

describe('boundToolError', () => {
  it('cuts the text of an error that echoes a huge argument, with a note', () => {
    const result = boundToolError({
      content: [{ type: 'text', text: `no workflow named "${'w'.repeat(20_000_000)}"` }],
      isError: true,
    });
    expect(bytesOf(result)).toBeLessThanOrEqual(MAX_REPLY_BYTES);
    expect(result).toMatchObject({
      isError: true,
      content: [{ text: expect.stringMatching(/more characters left out/) as string }],
    });
  });

  it('leaves a short error as it is', () => {
    const result: Parameters<typeof boundToolError>[0] = {
      content: [{ type: 'text', text: 'no' }],
      isError: true,
    };
    expect(boundToolError(result)).toBe(result);
  });
});
