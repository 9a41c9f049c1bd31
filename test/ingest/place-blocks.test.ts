import { mkdir, readFile, readdir, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runIngest } from '../../src/ingest/ingest-document.js';
import { MAX_STARTED_PATHS } from '../../src/ingest/place-blocks.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

const base = { runId: parseRunId('run-1'), nodeId: parseNodeId('plan'), docPath: 'docs/plan.md' } as const;
const STALE = '.artifact-ingest-0123456789abcdef.tmp';

describe('placing blocks under the workspace lock', () => {
  it('records the placed files while it still holds the lock, after the last rename', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': fileBlock('ts', 'a.ts', 'a') + fileBlock('ts', 'b.ts', 'b'),
    });
    const seen: { lock: string; files: string[]; paths: string[] }[] = [];
    await runIngest({
      projectDir,
      ...base,
      onPlaced: async (contents) => {
        seen.push({
          lock: await readFile(path.join(projectDir, '.agent/workspace.lock'), 'utf8'),
          files: (await readdir(path.join(projectDir, 'workspace'))).sort(),
          paths: contents.map((content) => content.workspacePath),
        });
      },
    });
    expect(seen).toHaveLength(1);
    expect(JSON.parse(seen[0]?.lock ?? '{}')).toMatchObject({ pid: process.pid });
    expect(seen[0]).toMatchObject({ files: ['a.ts', 'b.ts'], paths: ['workspace/a.ts', 'workspace/b.ts'] });
    await expect(readFile(path.join(projectDir, '.agent/workspace.lock'))).rejects.toThrow(/ENOENT/);
  });

  it('removes a temp file left in a target folder before it took the lock, however young', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'src/a.ts', 'a') });
    await mkdir(path.join(projectDir, 'workspace/src'), { recursive: true });
    const temp = path.join(projectDir, 'workspace/src', STALE);
    await writeFile(temp, 'a killed writer');
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    await utimes(temp, tenSecondsAgo, tenSecondsAgo);

    await runIngest({ projectDir, ...base });

    expect(await readdir(path.join(projectDir, 'workspace/src'))).toEqual(['a.ts']);
  });

  it('writes nothing while another live ingest holds the lock, and says who holds it', async () => {
    const projectDir = await tempProject({ 'docs/plan.md': fileBlock('ts', 'a.ts', 'a') });
    await mkdir(path.join(projectDir, '.agent'));
    const holder = {
      pid: process.ppid,
      hostname: hostname(),
      acquired_at: new Date().toISOString(),
      token: 'z',
    };
    await writeFile(path.join(projectDir, '.agent/workspace.lock'), JSON.stringify(holder));
    const placed: number[] = [];

    const result = await runIngest({
      projectDir,
      ...base,
      lockWaitMs: 100,
      onPlaced: (contents) => {
        placed.push(contents.length);
        return Promise.resolve();
      },
    });

    expect(result.manifest.artifacts).toMatchObject([
      {
        status: 'skipped',
        reason: expect.stringMatching(/^io_error: .*workspace\.lock was held by pid/) as string,
      },
    ]);
    expect(result.problems.map((problem) => problem.code)).toEqual(['io_error']);
    await expect(readdir(path.join(projectDir, 'workspace'))).rejects.toThrow(/ENOENT/);
    expect(placed).toEqual([]);
    const events = await readEvents(projectDir, 'run-1');
    expect(events.map((event) => event.event)).not.toContain('ingest.started');
  });

  it('writes no ingest.started for a document with nothing to write, or a dry run', async () => {
    const projectDir = await tempProject({
      'docs/plan.md': '# no blocks\n',
      'docs/dry.md': fileBlock('ts', 'a.ts', 'a'),
    });
    await runIngest({ projectDir, ...base });
    await runIngest({ projectDir, ...base, docPath: 'docs/dry.md', dryRun: true });
    const events = await readEvents(projectDir, 'run-1');
    expect(events.map((event) => event.event)).toEqual(['ingest.summary']);
  });

  it(`lists at most ${String(MAX_STARTED_PATHS)} planned paths in ingest.started, and counts them all`, async () => {
    const blocks = Array.from({ length: 60 }, (_, index) => fileBlock('txt', `f${String(index)}.txt`, 'x'));
    const projectDir = await tempProject({ 'docs/plan.md': blocks.join('\n') });
    await runIngest({ projectDir, ...base, durability: 'none' });
    const [started] = (await readEvents(projectDir, 'run-1')).filter(
      (event) => event.event === 'ingest.started',
    );
    expect(started).toMatchObject({ planned: 60 });
    expect(started?.planned_paths).toHaveLength(MAX_STARTED_PATHS);
  });
});
