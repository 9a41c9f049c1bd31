import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { snapshotKey } from '../../src/workflow/index.js';
import { tempProject } from '../helpers/temp-project.js';
import { connectServer, structuredOf } from '../mcp/mcp-test-client.js';
import { DEVELOPMENT_RESULT, contractProject } from '../workflow/engine/fixtures/contract-fixtures.js';

const WORKFLOW = `name: write
version: "1"
description: Write a file and register it
steps:
  - id: write
    type: action
    artefacts: true
    instructions: "Write a file."
`;
// A GitHub token shape that find-secret.ts recognises, used as a file name.
const TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;

/** Everything a client sees of a result: its text items and its structured content. */
function seen(result: CallToolResult): string {
  return JSON.stringify([result.content, result.structuredContent ?? null]);
}

describe('secret-shaped file names over MCP', () => {
  it('are refused by register_artefacts without being echoed, observed by key and never stored verbatim', async () => {
    const projectDir = await tempProject({ 'workflows/write.yaml': WORKFLOW, 'src/app.ts': 'app\n' });
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'write', run_id: 'w-1' }));
    const secretFile = `notes/${TOKEN}.md`;
    await mkdir(path.join(projectDir, 'notes'));
    await writeFile(path.join(projectDir, secretFile), 'a note\n');
    await writeFile(path.join(projectDir, 'src/app.ts'), 'app, edited\n');

    const registered = await call('register_artefacts', {
      paths: [secretFile, path.join(projectDir, secretFile), 'src/app.ts'],
    });
    expect(seen(registered)).not.toContain(TOKEN);
    const result = structuredOf(registered) as { registered: string[]; invalid: { code: string }[] };
    expect(result.registered).toEqual(['src/app.ts']);
    expect(result.invalid.map((problem) => problem.code)).toEqual(['secret_in_path', 'secret_in_path']);

    // Declared versus observed still sees the file, under its key, and the registered one as claimed.
    const status = await call('workflow_status', {});
    expect(seen(status)).not.toContain(TOKEN);
    expect(structuredOf(status).reconciliation).toEqual({
      unregistered: [snapshotKey(secretFile)],
      phantom: [],
    });

    const runDir = path.join(projectDir, '.agent/runs/w-1');
    const snapshots = await readdir(path.join(runDir, 'snapshots'));
    expect(snapshots.length).toBeGreaterThan(0);
    for (const name of snapshots) {
      expect(await readFile(path.join(runDir, 'snapshots', name), 'utf8')).not.toContain(TOKEN);
    }
    expect(await readFile(path.join(runDir, 'events.jsonl'), 'utf8')).not.toContain(TOKEN);
  });

  it('are not echoed by a submit_artifact refusal', async () => {
    const projectDir = await contractProject();
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
    const refused = await call('submit_artifact', {
      type: 'development_result',
      payload: {
        ...DEVELOPMENT_RESULT,
        [TOKEN]: 'x',
        changed_files: [{ path: `src/${TOKEN}.ts`, change: 'added' }],
      },
    });
    expect(refused.isError).toBe(true);
    expect(seen(refused)).toContain('[REDACTED]');
    expect(seen(refused)).not.toContain(TOKEN);
  });
});
