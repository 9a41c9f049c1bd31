import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INGEST_LIMITS } from '../../src/config/index.js';
import { parseFences } from '../../src/fence/index.js';
import { applyPlans, WRITE_CONCURRENCY } from '../../src/ingest/apply-plans.js';
import { openIngestRoots, planBlocks } from '../../src/ingest/index.js';
import { openConfinedRoot } from '../../src/workspace/index.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

async function apply(files: readonly string[], durability: 'fsync' | 'none' = 'none') {
  const projectDir = await tempProject();
  const doc = files.map((file, index) => fileBlock('ts', file, `// ${String(index)}`)).join('\n');
  const plans = planBlocks(parseFences(doc).blocks, DEFAULT_INGEST_LIMITS);
  const roots = openIngestRoots(projectDir);
  const problems: string[] = [];
  try {
    const applied = await applyPlans(plans, { roots, dryRun: false, durability }, (code, message) => {
      problems.push(`${code}: ${message}`);
    });
    return { projectDir, applied, problems };
  } finally {
    await roots.close();
  }
}

describe('applyPlans', () => {
  it('reports failed writes in document order, whatever order they fail in', async () => {
    const projectDir = await tempProject();
    const files = ['a.ts', 'b.ts', 'c.ts', 'd.ts'];
    const doc = files.map((file) => fileBlock('ts', file, 'x')).join('\n');
    const plans = planBlocks(parseFences(doc).blocks, DEFAULT_INGEST_LIMITS);
    // A root whose writes fail, the first block's last: written one at a time they would fail in order.
    const roots = openIngestRoots(projectDir, {
      open: async (rootPath, options) => {
        const root = await openConfinedRoot(rootPath, options);
        return {
          ...root,
          writeBatch: () => ({
            write: async (declared: string) => {
              await new Promise((resolve) =>
                setTimeout(resolve, 40 * (files.length - files.indexOf(declared))),
              );
              throw new Error(`disk full writing ${declared}`);
            },
            finish: () => Promise.resolve([]),
          }),
        };
      },
    });
    const problems: string[] = [];
    try {
      const applied = await applyPlans(
        plans,
        { roots, dryRun: false, durability: 'none' },
        (code, message) => {
          problems.push(`${code}: ${message}`);
        },
      );
      expect(applied.blocks.map((block) => block.code)).toEqual(files.map(() => 'io_error'));
    } finally {
      await roots.close();
    }
    expect(problems).toEqual(
      files.map((file) => `io_error: writing workspace/${file}: disk full writing ${file}`),
    );
  });

  it.each(['none', 'fsync'] as const)(
    'writes many files at once and reports them in document order (durability %s)',
    async (durability) => {
      const files = Array.from(
        { length: WRITE_CONCURRENCY * 5 },
        (_, i) => `d${String(i % 3)}/f${String(i)}.ts`,
      );
      const { projectDir, applied, problems } = await apply(files, durability);
      expect(problems).toEqual([]);
      expect(applied.blocks.map((block) => [block.workspacePath, block.status])).toEqual(
        files.map((file) => [`workspace/${file}`, 'written']),
      );
      expect(applied.contents.map((content) => content.workspacePath)).toEqual(
        files.map((file) => `workspace/${file}`),
      );
      for (const [index, file] of files.entries()) {
        expect(await readFile(path.join(projectDir, 'workspace', file), 'utf8')).toBe(
          `// ${String(index)}\n`,
        );
      }
    },
  );

  it.each([
    [
      ['a.ts', 'a.ts/b.ts', 'c.ts'],
      [null, 'not_a_directory', null],
    ],
    [
      ['x/y.ts', 'x', 'z.ts'],
      [null, 'is_a_directory', null],
    ],
    [
      ['m/n.ts', 'M', 'o.ts'],
      [null, 'is_a_directory', null],
    ],
  ])('writes in document order when one path is a folder of another: %j', async (files, codes) => {
    // On a case-sensitive filesystem 'M' and 'm' are two entries; the rule still keeps them in order.
    const { applied } = await apply(files);
    const expected = process.platform === 'linux' && files.includes('M') ? [null, null, null] : codes;
    expect(applied.blocks.map((block) => block.code)).toEqual(expected);
  });
});
