import { describe, expect, it } from 'vitest';
import { renderNodeTemplate, renderOutputPath } from '../../../src/runtime/graph/render-node-template.js';

const values: Record<string, string> = { goal: 'a CLI', 'big.output': 'x'.repeat(1000), 'euro.output': '€€' };
const lookup = (name: string): string | undefined => values[name];

describe('renderNodeTemplate', () => {
  it.each([
    // [template, maxBytes, expected ok, expected bytes when refused]
    ['{big.output}', 1000, true, undefined],
    ['{big.output}!', 1000, false, 1001],
    ['{big.output}{big.output}', 1999, false, 2000],
    ['{goal}', undefined, true, undefined],
    // '€' is 3 UTF-8 bytes: the limit counts bytes, as the written document and max_document_bytes do.
    ['{euro.output}', 5, false, 6],
    ['{euro.output}', 6, true, undefined],
  ])('renders %j under a limit of %s bytes: ok=%s', (template, maxBytes, ok, bytes) => {
    const rendered = renderNodeTemplate(template, lookup, maxBytes === undefined ? {} : { maxBytes });
    expect(rendered.ok).toBe(ok);
    if (!rendered.ok) {
      expect(rendered).toMatchObject({ code: 'output_too_large', bytes, limit: maxBytes });
      expect(rendered.message).toBe(
        `it would render to ${String(bytes)} bytes, over the limit of ${String(maxBytes)} bytes`,
      );
    }
  });

  it('refuses a doubling past the longest string a JS engine can build, without building it', () => {
    // 64 x 16 MiB = 1 GiB: join() would throw `Invalid string length` (V8's strings stop near 2^29 characters).
    const huge = 'y'.repeat(16 * 1024 * 1024 + 1);
    const template = '{h.output}'.repeat(64);
    const rendered = renderNodeTemplate(template, () => huge, { maxBytes: 16 * 1024 * 1024 });
    expect(rendered).toMatchObject({ ok: false, code: 'output_too_large', bytes: 64 * huge.length });
  });

  it('reports missing variables before sizes', () => {
    expect(renderNodeTemplate('{nope}{big.output}', lookup, { maxBytes: 1 })).toMatchObject({
      ok: false,
      code: 'template_error',
    });
  });

  it('renders output paths without a size limit', () => {
    expect(renderOutputPath('docs/{goal}.md', (name) => (name === 'goal' ? 'plan' : undefined))).toEqual({
      ok: true,
      text: 'docs/plan.md',
    });
  });
});
