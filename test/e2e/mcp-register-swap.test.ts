import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactRecordsPath, parseRunId, sha256Hex } from '../../src/project/index.js';
import { startFolderFlipper } from '../helpers/folder-flipper.js';
import { tempProject } from '../helpers/temp-project.js';
import { connectServer, structuredOf } from '../mcp/mcp-test-client.js';

const WORKFLOW = `name: write
version: "1"
description: Write a file and register it
steps:
  - id: write
    type: action
    artefacts: true
    instructions: "Write a file."
`;
const INSIDE = 'inside bytes: the project file\n';
const OUTSIDE = 'outside bytes: must never be recorded\n';

describe('register_artefacts over MCP against a folder flipped to a symlink', () => {
  it('records only the inside bytes in 60 calls while a child process flips the folder', async () => {
    const projectDir = await tempProject({ 'workflows/write.yaml': WORKFLOW, 'dir/file.txt': INSIDE });
    const outsideDir = await tempProject({ 'file.txt': OUTSIDE });
    const { call } = await connectServer(projectDir);
    structuredOf(await call('workflow_start', { workflow: 'write', run_id: 'w-1' }));
    const outcomes = new Map<string, number>();
    const flipper = await startFolderFlipper(projectDir, 'dir', outsideDir);
    try {
      for (let attempt = 0; attempt < 60; attempt += 1) {
        const result = structuredOf(await call('register_artefacts', { paths: ['dir/file.txt'] })) as {
          registered: string[];
          duplicates: string[];
          invalid: { code: string }[];
        };
        const outcome = [
          ...result.registered.map(() => 'registered'),
          ...result.duplicates.map(() => 'registered'),
          ...result.invalid.map((problem) => `invalid:${problem.code}`),
        ].join(',');
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      }
    } finally {
      await flipper.stop();
    }
    expect(
      [...outcomes.keys()].filter((key) => !/^(registered|invalid:(symlink|not_found))$/.test(key)),
    ).toEqual([]);
    const text = await readFile(path.join(projectDir, artifactRecordsPath(parseRunId('w-1'))), 'utf8');
    const hashes = text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { path?: string; contentHash?: string })
      .filter((record) => record.path === 'dir/file.txt')
      .map((record) => record.contentHash);
    expect(hashes.length).toBeGreaterThan(0);
    expect(hashes.filter((hash) => hash !== `sha256:${sha256Hex(INSIDE)}`)).toEqual([]);
  }, 120_000);
});
