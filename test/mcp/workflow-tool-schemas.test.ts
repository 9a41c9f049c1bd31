import { describe, expect, it } from 'vitest';
import { MAX_REPLY_ITEMS, toolResult } from '../../src/mcp/index.js';
import { tempProject } from '../helpers/temp-project.js';
import { Ajv, closed } from './strict-json-schema.js';
import { connectServer } from './mcp-test-client.js';

async function listedTools(
  projectDir?: string,
): Promise<{ name: string; inputSchema: object; outputSchema?: object | undefined }[]> {
  const { client } = await connectServer(projectDir ?? (await tempProject()));
  return (await client.listTools()).tools;
}

describe('the tool schemas as a client sees them', () => {
  it('compile under ajv in strict mode (draft-07), inputs and outputs', async () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    for (const tool of await listedTools()) {
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      expect(tool.outputSchema, tool.name).toBeDefined();
      expect(() => ajv.compile(tool.outputSchema ?? {}), tool.name).not.toThrow();
    }
  });

  it('accept a reply shortened to fit, with its left_out counts', async () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const tools = await listedTools();
    const register = tools.find((tool) => tool.name === 'register_artefacts');
    const invalid = Array.from({ length: MAX_REPLY_ITEMS + 7 }, (_, index) => ({
      path: `../x-${String(index)}`,
      code: 'outside_project',
      message: 'outside the project',
    }));
    const result = toolResult({ run_id: 'r', registered: [], duplicates: [], invalid });
    expect(result.structuredContent).toMatchObject({ left_out: { invalid: 7 } });
    const validate = ajv.compile(register?.outputSchema ?? {});
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  });

  it("accept workflow_list's broken files even with additionalProperties: false everywhere (issue 24)", async () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const projectDir = await tempProject({
      'workflows/good.yaml': 'name: good\nversion: "1"\nsteps:\n  - id: only\n    instructions: "Do it."\n',
      'workflows/bad.yaml': 'name: x\nsteps: oops\n',
    });
    const list = (await listedTools(projectDir)).find((tool) => tool.name === 'workflow_list');
    const { call } = await connectServer(projectDir);
    const result = await call('workflow_list');
    expect(result.structuredContent).toMatchObject({ broken: [{ name: 'bad', file: 'workflows/bad.yaml' }] });
    const validate = ajv.compile(closed(list?.outputSchema ?? {}) as object);
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true);
  });
});
