import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import { describeSchemaIssues } from '../../src/config/index.js';

describe('describeSchemaIssues', () => {
  it('lists every issue as path: message, (root) for the value itself', () => {
    const schema = z.object({ a: z.number(), b: z.object({ c: z.string() }) });
    const nested = schema.safeParse({ a: 'x', b: { c: 1 } });
    expect(nested.success).toBe(false);
    if (nested.success) return;
    expect(describeSchemaIssues(nested.error.issues)).toBe(
      `a: ${nested.error.issues[0]?.message ?? ''}; b.c: ${nested.error.issues[1]?.message ?? ''}`,
    );
    const root = schema.safeParse(7);
    if (root.success) return;
    expect(describeSchemaIssues(root.error.issues)).toMatch(/^\(root\): /);
  });
});
