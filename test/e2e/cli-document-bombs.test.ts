// Issue 23, "one document takes the process down": a 16 MiB document (under max_document_bytes) of one valid block
// and 932,064 near-miss openers died of V8 heap exhaustion. Each surface now ingests it in a child whose heap is
// capped at 4 times the document, listing max_blocks entries and counting the rest in one. `ingest` gets the
// issue's 16 MiB document; `run` and `workflow advance` get 4 MiB of the same shape, which still exhausts a 64 MiB
// heap when parsed in process: `parseFences` of it under `node --max-old-space-size=64` dies of heap exhaustion
// (as 3 MiB does; 2 MiB survives at 59 MiB used, and 4 MiB peaks at about 90 MiB under a 128 MiB cap).
import { readFile } from 'node:fs/promises';
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
/** A hostile document of the issue's shape and `mib` MiB, and its number of candidates. */
const bomb = (mib: number): { readonly text: string; readonly candidates: number } => {
  const text = hostileDocument(shape, mib * MIB);
  return { text, candidates: hostileCandidates(shape, text) };
};
const issueBomb = bomb(16);
const smallBomb = bomb(4);

/** Runs the built CLI in `cwd` with its V8 heap capped at HEAP_MIB. */
function capped(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return runProgram(process.execPath, [`--max-old-space-size=${String(HEAP_MIB)}`, CLI, ...args], {
    cwd,
    env,
  });
}

/** A project holding the graph, the workflow, and `files` (the document where the surface under test reads it). */
async function project(files: Record<string, string>): Promise<string> {
  return tempProject({
    'artifact-ingest.config.yaml': CONFIG,
    'bomb.yaml': GRAPH,
    'workflows/w.yaml': WORKFLOW,
    ...files,
  });
}

/** Checks the manifest on disk: max_blocks entries and the one counting every other candidate, all counted. */
async function expectSummarised(
  projectDir: string,
  manifestPath: string,
  candidates: number,
): Promise<IngestManifest> {
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

describe(`a near-miss document under a ${String(HEAP_MIB)} MiB heap`, () => {
  it(`artifact-ingest ingest completes with a manifest for the issue's 16 MiB document of ${String(issueBomb.candidates)} candidates`, async () => {
    const projectDir = await project({ 'docs/bomb.md': issueBomb.text });
    const { code, stderr } = await capped(
      ['ingest', 'docs/bomb.md', '--run-id', 'cli', '--json'],
      projectDir,
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    await expectSummarised(projectDir, '.agent/runs/cli/manifests/bomb.json', issueBomb.candidates);
  }, 300_000);

  it(`artifact-ingest run ingests a replayed reply of 4 MiB (${String(smallBomb.candidates)} candidates) through the post-write hook`, async () => {
    const { candidates } = smallBomb;
    const projectDir = await project({ 'replies/n.md': smallBomb.text });
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
    await expectSummarised(projectDir, '.agent/runs/graph/manifests/n.json', candidates);
  }, 300_000);

  it(`artifact-ingest workflow advance ingests the 4 MiB output (${String(smallBomb.candidates)} candidates) it reads from a file`, async () => {
    const projectDir = await project({ 'output.md': smallBomb.text });
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
    await expectSummarised(projectDir, '.agent/runs/flow/manifests/s.json', smallBomb.candidates);
  }, 300_000);
});
