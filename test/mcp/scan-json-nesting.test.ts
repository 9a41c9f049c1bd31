import { describe, expect, it } from 'vitest';
import { scanJsonNesting } from '../../src/mcp/scan-json-nesting.js';

describe('scanJsonNesting', () => {
  // Each row: JSON text, the limit, and the path to the first part too deep (undefined: none).
  const cases: readonly (readonly [string, number, (string | number)[] | undefined])[] = [
    ['{"a":{"b":1}}', 2, undefined],
    ['{"a":{"b":{}}}', 2, ['a', 'b']],
    ['[[1],[2,[3]]]', 2, [1, 1]],
    ['{"x":[0,{"y":[{}]}]}', 3, ['x', 1, 'y']],
    ['{"k\\"e}y":{"[":"]{","v":[{}]}}', 3, ['k"e}y', 'v', 0]],
    ['"{{{{"', 1, undefined],
    ['{"a":"\\\\","b":{"c":[]}}', 2, ['b', 'c']],
    ['{}', 0, []],
  ];

  it.each(cases)('measures %s against %i levels', (text, limit, path) => {
    expect(scanJsonNesting(text, limit)?.path).toEqual(path);
  });

  it('cuts every part below the limit to null, leaving the rest as it was', () => {
    const scan = scanJsonNesting('{"a":[[1,[2]],{"b":{"c":1}}],"id":5}', 3);
    expect(scan?.pruned).toBe('{"a":[[1,null],{"b":null}],"id":5}');
    expect(JSON.parse(scan?.pruned ?? '')).toEqual({ a: [[1, null], { b: null }], id: 5 });
  });

  it('measures a million levels in one pass without a stack', () => {
    const text = `{"p":${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}}`;
    const scan = scanJsonNesting(text, 64);
    expect(scan?.path).toEqual(['p', ...Array<number>(63).fill(0)]);
    expect(scan?.pruned).toBe(`{"p":${'['.repeat(63)}null${']'.repeat(63)}}`);
  });

  it('shortens a long key in the path', () => {
    const key = 'k'.repeat(5000);
    const [first] = scanJsonNesting(`{"${key}":[]}`, 1)?.path ?? [];
    expect(first).toBe(`${'k'.repeat(100)}…`);
  });

  it('cuts an object still open at the end of text that is not JSON', () => {
    expect(scanJsonNesting('{"a":{"b":[1,2', 1)?.pruned).toBe('{"a":null');
  });
});
