import { lstat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openIngestRoots, runIngest } from '../../src/ingest/index.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { openConfinedRoot } from '../../src/workspace/index.js';
import type { ConfinedRoot, ConfinedRootOptions } from '../../src/workspace/index.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

/** The real opener, counting what it opens and closes. */
function countingOpen() {
  const opened: string[] = [];
  const closed: string[] = [];
  const open = async (rootPath: string, options: ConfinedRootOptions): Promise<ConfinedRoot> => {
    const root = await openConfinedRoot(rootPath, options);
    opened.push(path.basename(rootPath));
    return {
      realPath: root.realPath,
      confinement: root.confinement,
      write: (declared, bytes, writeOptions) => root.write(declared, bytes, writeOptions),
      writeStream: (declared, chunks, streamOptions) => root.writeStream(declared, chunks, streamOptions),
      appendLines: (declared, text, appendOptions) => root.appendLines(declared, text, appendOptions),
      makeDirectory: (declared) => root.makeDirectory(declared),
      openFile: (relative, readOptions) => root.openFile(relative, readOptions),
      openFolder: (relative, readOptions) => root.openFolder(relative, readOptions),
      writeBatch: () => root.writeBatch(),
      sweepTempFiles: (declared, sweepOptions) => root.sweepTempFiles(declared, sweepOptions),
      stage: (targetDirectory) => root.stage(targetDirectory),
      close: async () => {
        closed.push(path.basename(rootPath));
        await root.close();
      },
    };
  };
  return { open, opened, closed };
}

const runId = parseRunId('run-1');

describe('openIngestRoots', () => {
  it('opens workspace/ once for many ingests, and closes it once', async () => {
    const projectDir = await tempProject({
      'docs/a.md': fileBlock('ts', 'a.ts', 'a'),
      'docs/b.md': fileBlock('ts', 'b.ts', 'b'),
      'docs/c.md': fileBlock('ts', 'c.ts', 'c'),
    });
    const counting = countingOpen();
    const roots = openIngestRoots(projectDir, { open: counting.open });

    for (const name of ['a', 'b', 'c']) {
      const result = await runIngest({
        projectDir,
        runId,
        nodeId: parseNodeId(name),
        docPath: `docs/${name}.md`,
        roots,
        durability: 'none',
      });
      expect(result.manifestPath).toBe(`.agent/runs/run-1/manifests/${name}.json`);
    }
    // The manifests go to the project's store: workspace/ is the one root the ingest writes through.
    expect(counting.opened).toEqual(['workspace']);
    expect(counting.closed).toEqual([]);

    await roots.close();
    expect(counting.closed).toEqual(['workspace']);
    expect(await readFile(path.join(projectDir, 'workspace/c.ts'), 'utf8')).toBe('c\n');
  });

  it('shares one open between concurrent ingests', async () => {
    const files = Object.fromEntries(
      Array.from({ length: 6 }, (_, n) => [`docs/d${n}.md`, fileBlock('txt', `d${n}.txt`, `${n}`)]),
    );
    const projectDir = await tempProject(files);
    const counting = countingOpen();
    const roots = openIngestRoots(projectDir, { open: counting.open });
    await Promise.all(
      Object.keys(files).map((docPath, n) =>
        runIngest({ projectDir, runId, nodeId: parseNodeId(`d${n}`), docPath, roots, durability: 'none' }),
      ),
    );
    await roots.close();
    expect(counting.opened.filter((name) => name === 'workspace')).toHaveLength(1);
  });

  it('opens nothing, and creates no workspace/, for a document without file blocks', async () => {
    const projectDir = await tempProject({ 'docs/a.md': '# nothing to extract\n' });
    const counting = countingOpen();
    const roots = openIngestRoots(projectDir, { open: counting.open });
    await runIngest({ projectDir, runId, nodeId: parseNodeId('a'), docPath: 'docs/a.md', roots });
    await roots.close();
    expect(counting.opened).toEqual([]);
    await expect(lstat(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
  });

  it('tries again after a failed open instead of keeping the failure', async () => {
    const projectDir = await tempProject();
    let attempts = 0;
    const roots = openIngestRoots(projectDir, {
      open: async (rootPath, options) => {
        attempts += 1;
        if (attempts === 1) throw new Error('transient');
        return openConfinedRoot(rootPath, options);
      },
    });
    await expect(roots.workspace()).rejects.toThrow('transient');
    await expect(roots.workspace()).resolves.toMatchObject({ realPath: expect.any(String) as string });
    await roots.close();
    expect(attempts).toBe(2);
  });
});
