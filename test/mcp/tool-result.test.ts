import { describe, expect, it } from 'vitest';
import { toolError, toolResult } from '../../src/mcp/tool-result.js';
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
});
