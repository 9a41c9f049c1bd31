// Issue 23, "one document takes the process down": a 16 MiB document (under max_document_bytes) of one valid block
// and 932,064 near-miss openers died of V8 heap exhaustion. Each surface now ingests it in a child whose heap is
// capped at 4 times the document, listing max_blocks entries and counting the rest in one.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ingestManifestSchema } from '../../src/ingest/index.js';
import type { IngestManifest } from '../../src/ingest/index.js';
import { HOSTILE_SHAPES, hostileCandidates, hostileDocument } from '../helpers/hostile-documents.js';
import { CLI, runProgram } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

const MIB = 1024 * 1024;
const HEAP_MIB = 64;
const MAX_BLOCKS = 500;
// The parse deadline is not what these tests are about: a loaded machine must not turn them into too_complex.
const CONFIG = [
  'ingest:',
  '  durability: none',
  '  limits:',
  '    max_parse_ms: 300000',
  'agents:',
  '  bot:',
  '    kind: replay',
  '    dir: replies',
  '',
].join('\n');
const GRAPH = [
  'name: bomb',
  "version: '1'",
  'nodes:',
  '  - { id: n, type: agent_task, agent: bot, prompt: go, output_path: docs/n.md }',
  '',
].join('\n');
const WORKFLOW = "name: w\nversion: '1'\nsteps:\n  - id: s\n    instructions: write it\n";

const shape = HOSTILE_SHAPES[0];
if (shape === undefined) throw new Error('no near-miss shape');
const document = hostileDocument(shape, 16 * MIB);
const candidates = hostileCandidates(shape, document);

/** Runs the built CLI in `cwd` with its V8 heap capped at HEAP_MIB. */
function capped(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return runProgram(process.execPath, [`--max-old-space-size=${String(HEAP_MIB)}`, CLI, ...args], {
    cwd,
    env,
  });
}

async function project(): Promise<string> {
  return tempProject({
    'artifact-ingest.config.yaml': CONFIG,
    'bomb.yaml': GRAPH,
    'workflows/w.yaml': WORKFLOW,
    'docs/bomb.md': document,
    'replies/n.md': document,
  });
}

/** Checks the manifest on disk: max_blocks entries and the one counting every other candidate, all counted. */
async function expectSummarised(projectDir: string, manifestPath: string): Promise<IngestManifest> {
  const text = await readFile(path.join(projectDir, manifestPath), 'utf8');
  expect(text.length).toBeLessThan(256 * 1024);
  const manifest = ingestManifestSchema.parse(JSON.parse(text));
  expect(manifest.artifacts).toHaveLength(MAX_BLOCKS + 1);
  expect(manifest.artifacts.at(-1)?.reason).toMatch(
    new RegExp(
      `^too_many_blocks: ${String(candidates - MAX_BLOCKS)} more candidate blocks were not ingested after the first 500 \\(max_blocks\\); by reason: quoted_path \\d+, unsupported_key \\d+\\.`,
    ),
  );
  expect(manifest.summary).toEqual({
    total_blocks: candidates,
    written: 1,
    skipped: candidates - 1,
    rejected: 0,
  });
  const events = (
    await readFile(path.join(projectDir, '.agent/runs', manifest.run_id, 'events.jsonl'), 'utf8')
  )
    .split('\n')
    .filter((line) => line.includes('"ingest.block"'));
  expect(events).toHaveLength(MAX_BLOCKS + 1);
  expect(await readFile(path.join(projectDir, 'workspace/src/kept.ts'), 'utf8')).toBe(
    'export const kept = 1;\n',
  );
  return manifest;
}

describe(`a 16 MiB document of ${String(candidates)} candidates, under a ${String(HEAP_MIB)} MiB heap`, () => {
  it('artifact-ingest ingest completes with a manifest', async () => {
    const projectDir = await project();
    const { code, stderr } = await capped(
      ['ingest', 'docs/bomb.md', '--run-id', 'cli', '--json'],
      projectDir,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    await expectSummarised(projectDir, '.agent/runs/cli/manifests/bomb.json');
  }, 300_000);

  it('artifact-ingest run ingests a replayed reply through the post-write hook', async () => {
    const projectDir = await project();
    const { code, stdout, stderr } = await capped(
      ['run', 'bomb.yaml', '--run-id', 'graph', '--ingest', '--json'],
      projectDir,
    );
    expect(stderr).not.toMatch(/heap/i);
    expect(code).toBe(0);
    const state = JSON.parse(stdout) as { nodes: Record<string, { status: string; ingest?: unknown }> };
    expect(state.nodes['n']).toMatchObject({
      status: 'completed',
      ingest: { total_blocks: candidates, written: 1, skipped: candidates - 1, rejected: 0 },
    });
    await expectSummarised(projectDir, '.agent/runs/graph/manifests/n.json');
  }, 300_000);

  it('artifact-ingest workflow advance ingests the output it reads from a file', async () => {
    const projectDir = await project();
    await writeFile(path.join(projectDir, 'output.md'), document);
    const started = await capped(['workflow', 'start', 'w', '--run-id', 'flow', '--json'], projectDir);
    expect(started.code).toBe(0);
    const { code, stdout, stderr } = await capped(
      ['workflow', 'advance', 'flow', '--output-file', 'output.md', '--json'],
      projectDir,
      { ARTIFACT_INGEST: '1' },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ status: 'complete' });
    await expectSummarised(projectDir, '.agent/runs/flow/manifests/s.json');
  }, 300_000);
});
