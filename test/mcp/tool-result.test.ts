import { describe, expect, it } from 'vitest';
import { redactToolResult, toolError, toolResult } from '../../src/mcp/tool-result.js';
import { WorkflowError } from '../../src/workflow/index.js';

const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;

describe('toolResult and toolError', () => {
  it('redact a credential in any string of a result, keeping paths, hashes and ids as they are', () => {
    const result = toolResult({
      instruction: `push with token=${TOKEN} please`,
      steps: [{ note: `Authorization: Bearer ${TOKEN}` }],
      path: 'workspace/src/a.ts',
      run_id: 'wf-1',
    });
    const text = JSON.stringify(result);
    expect(text).not.toContain(TOKEN);
    expect(result.structuredContent).toMatchObject({ path: 'workspace/src/a.ts', run_id: 'wf-1' });
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual(result.structuredContent);
  });

  it('redact a credential in an error message', () => {
    const result = toolError(new WorkflowError('invalid_workflow', `input api_key=${TOKEN} is not declared`));
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result)).not.toContain(TOKEN);
  });

  it('redact a path that holds a credential too, as the CLI does', () => {
    const result = toolResult({
      registered: [],
      invalid: [{ path: `notes/${TOKEN}.md`, code: 'secret_in_path', message: 'rename it' }],
    });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result.structuredContent).toMatchObject({ invalid: [{ path: 'notes/[REDACTED].md' }] });
  });
});

describe('redactToolResult', () => {
  it('redacts every text item and every string and key of the structured content, keeping the rest', () => {
    const result = redactToolResult({
      content: [
        { type: 'text', text: `refused: no key "${TOKEN}"` },
        { type: 'text', text: JSON.stringify({ errors: [{ path: TOKEN }] }) },
        { type: 'image', data: 'aGk=', mimeType: 'image/png' },
      ],
      structuredContent: { [TOKEN]: 1, nested: [{ path: `a/${TOKEN}` }], count: 2, ok: true, none: null },
      isError: true,
    });
    expect(JSON.stringify(result)).not.toContain(TOKEN);
    expect(result.isError).toBe(true);
    expect(result.content[2]).toEqual({ type: 'image', data: 'aGk=', mimeType: 'image/png' });
    expect(result.structuredContent).toEqual({
      '[REDACTED]': 1,
      nested: [{ path: 'a/[REDACTED]' }],
      count: 2,
      ok: true,
      none: null,
    });
  });

  it('leaves a result without secrets as it was', () => {
    const clean = toolResult({ run_id: 'wf-1', path: 'src/a.ts', content_hash: `sha256:${'ab'.repeat(32)}` });
    expect(redactToolResult(clean)).toEqual(clean);
  });
});
