import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunReport } from '../../src/report/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempProject } from '../helpers/temp-project.js';

// A run of 10,000 files: one `ingest --run-id` of 20 documents of 500 blocks (the ingest's default
// max_blocks), each block a 40-line module. The report must stay a few MB: diffs past the total are left out
// with the replay command, and rows past maxFiles and maxBlocks are only counted.

const DOCUMENTS = 20;
const BLOCKS = 500;

function document(part: number): string {
  const blocks = Array.from({ length: BLOCKS }, (_, block) => {
    const lines = Array.from(
      { length: 40 },
      (_, line) =>
        `export const v${String(line)} = ${String(part * BLOCKS + block + line)}; // module ${String(part)}/${String(block)}\n`,
    ).join('');
    return `\`\`\`js file=src/m${String(part)}/f${String(block)}.js\n${lines}\`\`\`\n`;
  });
  return `# Part ${String(part)}\n\n${blocks.join('\n')}`;
}

describe('readRunReport on a run of 10,000 files', () => {
  it('stays a few MB, with diffs and rows past the caps left out and counted', async () => {
    const project = await tempProject({ 'artifact-ingest.config.yaml': 'ingest:\n  durability: none\n' });
    await mkdir(path.join(project, 'docs'));
    for (let part = 0; part < DOCUMENTS; part += 1)
      await writeFile(path.join(project, 'docs', `part-${String(part)}.md`), document(part));
    const ingest = await runCli(['ingest', '--run-id', 'big', '--project', project]);
    expect(ingest.code, ingest.stderr).toBe(0);

    const started = performance.now();
    const report = await readRunReport(project, 'big');
    const elapsedMs = performance.now() - started;
    const bytes = Buffer.byteLength(JSON.stringify(report));
    // The figures for the record (no assertion on time: the machine decides it).
    console.log(`report of 10,000 files: ${String(bytes)} bytes of JSON in ${elapsedMs.toFixed(0)} ms`);

    expect(report.steps).toHaveLength(DOCUMENTS);
    const listed = report.steps.reduce((sum, step) => sum + step.files.length, 0);
    const omitted = report.steps.reduce((sum, step) => sum + (step.filesOmitted ?? 0), 0);
    expect(listed + omitted).toBe(DOCUMENTS * BLOCKS);
    expect(listed).toBe(report.limits.maxFiles);
    expect(report.limits.filesOmitted).toBe(omitted);
    expect(report.limits.blocksOmitted).toBe(DOCUMENTS * BLOCKS - (report.limits.maxBlocks ?? 0));
    expect(report.limits.diffsOmitted).toBeGreaterThan(0);
    const files = report.steps.flatMap((step) => step.files);
    expect(files.filter((file) => file.diff.kind === 'omitted')).toHaveLength(report.limits.diffsOmitted);
    expect(files.at(-1)?.diff).toEqual({
      kind: 'omitted',
      message: expect.stringContaining('left out for size') as string,
      command: `artifact-ingest replay big --backward --path ${files.at(-1)?.path ?? ''}`,
    });
    const diffBytes = files.reduce(
      (sum, file) => sum + (file.diff.kind === 'text' ? Buffer.byteLength(file.diff.patch) : 0),
      0,
    );
    // The total is passed by at most the one diff that crossed it.
    expect(diffBytes).toBeLessThan(report.limits.maxDiffBytesTotal + 4096);
    expect(bytes).toBeLessThan(5 * 1024 * 1024);
    expect(report.verify).toMatchObject({ ok: true, workspaceFiles: { checked: DOCUMENTS * BLOCKS } });
  }, 600_000);
});
