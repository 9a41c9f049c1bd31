import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { fileBlock, tempProject } from '../helpers/temp-project.js';
import { Ajv, closed } from './strict-json-schema.js';
import { connectServer, structuredOf } from './mcp-test-client.js';

const WORKFLOW = `name: build
version: "1"
steps:
  - id: write
    instructions: "Write it."
  - id: again
    instructions: "Write it again."
  - id: review
    instructions: "Review it."
`;

const OUTPUT = [
  'Here is the file.',
  '',
  fileBlock('ts', 'src/x.ts', 'export const x = 1;'),
  fileBlock('sh', '../evil.sh', 'rm -rf ~'),
  '```ts file=src/cut.ts',
  'export const y =',
  '',
].join('\n');

/** The text items of a result after the first (the JSON). */
function linesOf(result: CallToolResult): string {
  return result.content
    .slice(1)
    .map((item) => (item.type === 'text' ? item.text : ''))
    .join('\n');
}

async function startedRun(env: Record<string, string>) {
  const projectDir = await tempProject({ 'workflows/build.yaml': WORKFLOW });
  const session = await connectServer(projectDir, { env });
  structuredOf(await session.call('workflow_start', { workflow: 'build', run_id: 'b-1' }));
  const schema = (await session.client.listTools()).tools.find(
    (tool) => tool.name === 'workflow_advance',
  )?.outputSchema;
  const validate = new Ajv({ strict: true, allErrors: true }).compile(closed(schema ?? {}) as object);
  return { projectDir, session, validate };
}

describe('workflow_advance tells the agent what became of its output (issue 24)', () => {
  it('lists each file block: written to its workspace path, or skipped or rejected with the reason', async () => {
    const { projectDir, session, validate } = await startedRun({ ARTIFACT_INGEST: '1' });
    const result = await session.call('workflow_advance', { output: OUTPUT });
    const value = structuredOf(result);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(value.ingest).toEqual({
      document: 'docs/b-1/write.md',
      enabled: true,
      total_blocks: 3,
      written: 1,
      skipped: 1,
      rejected: 1,
      manifest_path: '.agent/runs/b-1/manifests/write.json',
      problems: [],
      blocks: [
        { index: 0, declared_file: 'src/x.ts', status: 'written', workspace_path: 'workspace/src/x.ts' },
        {
          index: 1,
          declared_file: '../evil.sh',
          status: 'rejected',
          reason: expect.stringMatching(/^traversal: /) as string,
        },
        {
          index: 2,
          declared_file: 'src/cut.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/cut.ts',
          reason: expect.stringMatching(/^unterminated: /) as string,
        },
      ],
      left_out: 0,
    });
    // The reply's words are the manifest's.
    const manifest = JSON.parse(
      await readFile(path.join(projectDir, '.agent/runs/b-1/manifests/write.json'), 'utf8'),
    ) as { artifacts: { status: string; reason: string }[] };
    expect(manifest.artifacts.map((entry) => [entry.status, entry.reason.split(':')[0]])).toEqual([
      ['written', ''],
      ['rejected', 'traversal'],
      ['skipped', 'unterminated'],
    ]);
    const lines = linesOf(result);
    expect(lines).toContain(
      'ingest of docs/b-1/write.md: 3 blocks: 1 written, 1 skipped, 1 rejected (manifest .agent/runs/b-1/manifests/write.json)',
    );
    expect(lines).toContain('  written   src/x.ts -> workspace/src/x.ts');
    expect(lines).toMatch(/^ {2}rejected {2}\.\.\/evil\.sh {2}traversal: /m);
    expect(lines).toMatch(/^ {2}skipped {3}src\/cut\.ts {2}unterminated: /m);
  });

  it('says skipped with reason unchanged for a file that already holds the bytes, as the manifest does', async () => {
    const { session, validate } = await startedRun({ ARTIFACT_INGEST: '1' });
    const block = fileBlock('ts', 'src/x.ts', 'export const x = 1;');
    structuredOf(await session.call('workflow_advance', { output: block }));
    const result = await session.call('workflow_advance', { output: block });
    const value = structuredOf(result);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(value.ingest).toMatchObject({
      written: 0,
      skipped: 1,
      blocks: [
        {
          declared_file: 'src/x.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/x.ts',
          reason: 'unchanged: the file already holds exactly these bytes',
        },
      ],
    });
    expect(linesOf(result)).toContain(
      '  skipped   src/x.ts  unchanged: the file already holds exactly these bytes',
    );
  });

  it('says the ingest is off when it is, and carries the ingest on completion too', async () => {
    const { session, validate } = await startedRun({});
    for (const step of ['write', 'again']) {
      const value = structuredOf(await session.call('workflow_advance', { output: OUTPUT }));
      expect(value.ingest).toEqual({ document: `docs/b-1/${step}.md`, enabled: false });
    }
    const done = await session.call('workflow_advance', { output: 'fine' });
    const value = structuredOf(done);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(value).toMatchObject({
      status: 'complete',
      ingest: { document: 'docs/b-1/review.md', enabled: false },
    });
    expect(linesOf(done)).toMatch(/^ingest: off: docs\/b-1\/review\.md was saved; /);
  });

  it("shows a block's warning under it: a file=workspace/... path is written to workspace/workspace/", async () => {
    const { session, validate } = await startedRun({ ARTIFACT_INGEST: '1' });
    const result = await session.call('workflow_advance', {
      output: fileBlock('ts', 'workspace/src/p.ts', 'export {};'),
    });
    const value = structuredOf(result);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    expect(value.ingest).toMatchObject({
      blocks: [
        {
          declared_file: 'workspace/src/p.ts',
          status: 'written',
          workspace_path: 'workspace/workspace/src/p.ts',
          warnings: [expect.stringMatching(/^workspace_prefix: .*write file=src\/p\.ts$/) as string],
        },
      ],
    });
    expect(linesOf(result)).toMatch(
      /^ {2}written {3}workspace\/src\/p\.ts -> workspace\/workspace\/src\/p\.ts\n {2}warning {3}workspace_prefix: .*write file=src\/p\.ts$/m,
    );
  });

  it('adds no ingest to an advance without output', async () => {
    const { session } = await startedRun({ ARTIFACT_INGEST: '1' });
    const result = await session.call('workflow_advance', {});
    expect(structuredOf(result)).not.toHaveProperty('ingest');
    expect(result.content).toHaveLength(1);
  });

  it('redacts a credential in a declared path and escapes its control characters in both forms', async () => {
    const { session, validate } = await startedRun({ ARTIFACT_INGEST: '1' });
    const token = `ghp_${'a1B2'.repeat(9)}`;
    const output = `${fileBlock('ts', `src/${token}.ts`, 'x')}${fileBlock('ts', 'src/\u202egnp.ts', 'y')}`;
    const result = await session.call('workflow_advance', { output });
    const value = structuredOf(result);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    const everything = JSON.stringify(result);
    expect(everything).not.toContain(token.slice(4));
    expect(everything).toContain('[REDACTED]');
    const lines = linesOf(result);
    expect(lines).not.toContain('\u202e');
    expect(lines).toContain('src/\\u202egnp.ts');
  });

  it('lists at most 50 blocks and counts the others in left_out', async () => {
    const { session, validate } = await startedRun({ ARTIFACT_INGEST: '1' });
    const output = Array.from({ length: 57 }, (_, index) => fileBlock('txt', `f/${String(index)}.txt`, 'x'))
      .concat(fileBlock('sh', '/etc/passwd', 'x'))
      .join('\n');
    const result = await session.call('workflow_advance', { output });
    const value = structuredOf(result);
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
    const ingest = value.ingest as { blocks: { status: string }[]; left_out: number; total_blocks: number };
    expect(ingest.total_blocks).toBe(58);
    expect(ingest.blocks).toHaveLength(50);
    expect(ingest.left_out).toBe(8);
    expect(ingest.blocks.at(-1)).toMatchObject({ declared_file: '/etc/passwd', status: 'rejected' });
    expect(linesOf(result)).toContain('  ... 8 blocks more, not listed here: the manifest has every block');
  });
});
