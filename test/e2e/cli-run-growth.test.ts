import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runProgram } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024;

/** A graph of `count` write_file nodes, each writing the previous node's output twice: 128 bytes x 2^k. */
function doublingGraph(count: number): string {
  const nodes = [
    `  - { id: n0, type: write_file, content: "${'ab'.repeat(64)}", output_path: "docs/n0.md" }`,
  ];
  for (let index = 1; index < count; index += 1) {
    const previous = `n${String(index - 1)}`;
    nodes.push(
      `  - { id: n${String(index)}, type: write_file, depends_on: [${previous}], content: "{${previous}.output}{${previous}.output}", output_path: "docs/n${String(index)}.md" }`,
    );
  }
  return `name: doubling\nversion: "1"\ndescription: each node doubles the last\nnodes:\n${nodes.join('\n')}\n`;
}

/** Runs the built CLI with a V8 heap capped at `heapMiB`, so a run that builds a 1 GB string dies. */
function runCapped(args: readonly string[], cwd: string, heapMiB: number) {
  return runProgram(process.execPath, [`--max-old-space-size=${String(heapMiB)}`, CLI, ...args], { cwd });
}

describe('artifact-ingest run: template growth', () => {
  it('fails the first node past max_document_bytes cleanly, with a 256 MiB heap and nothing oversized on disk', async () => {
    const projectDir = await tempProject();
    const graph = doublingGraph(40);
    expect(graph.length).toBeLessThan(6 * 1024);
    await writeFile(path.join(projectDir, 'doubling.yaml'), graph);
    const { code, stdout, stderr } = await runCapped(
      ['run', 'doubling.yaml', '--run-id', 'grow', '--json'],
      projectDir,
      256,
    );
    expect(stderr).not.toContain('Invalid string length');
    expect(code).toBe(1);
    const state = JSON.parse(stdout) as {
      nodes: Record<string, { status: string; error?: { code: string; message: string } }>;
      terminal: { state: string; reason: string };
    };
    // 128 x 2^17 = 16 MiB fits exactly; n18 would be 32 MiB.
    expect(state.nodes.n17?.status).toBe('completed');
    expect(state.nodes.n18?.error).toEqual({
      code: 'output_too_large',
      message: `node n18: content: it would render to ${String(2 * MAX_DOCUMENT_BYTES)} bytes, over the limit of ${String(MAX_DOCUMENT_BYTES)} bytes (max_document_bytes); nothing was written. Make the node's inputs or template smaller, or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml`,
    });
    for (let index = 19; index < 40; index += 1) {
      expect(state.nodes[`n${String(index)}`]?.status).toBe('skipped');
    }
    expect(state.terminal.state).toBe('blocked');
    expect(state.terminal.reason).toContain('node n18 failed (output_too_large)');
    const terminal = JSON.parse(
      await readFile(path.join(projectDir, '.agent', 'runs', 'grow', 'terminal.json'), 'utf8'),
    ) as { state: string };
    expect(terminal.state).toBe('blocked');
    const docs = await readdir(path.join(projectDir, 'docs'));
    expect(docs).toHaveLength(18);
    for (const doc of docs) {
      expect((await stat(path.join(projectDir, 'docs', doc))).size).toBeLessThanOrEqual(MAX_DOCUMENT_BYTES);
    }
  }, 60_000);
});
