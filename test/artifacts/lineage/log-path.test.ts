import { appendFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { indexFileOf } from '../../../src/artifacts/store/artifact-index.js';
import { LineageError } from '../../../src/artifacts/lineage/lineage-error.js';
import { logPath } from '../../../src/artifacts/lineage/log-path.js';
import { recordSteps } from '../../helpers/record-steps.js';
import { tempProject } from '../../helpers/temp-project.js';

/** Two runs: run-001 creates a.ts and the plan, run-002 rewrites a.ts; one second per record. */
async function twoRunProject(): Promise<string> {
  const project = await tempProject();
  await recordSteps(project, [
    { runId: 'run-001', files: { 'workspace/src/a.ts': 'a\nb\nc\n', 'docs/plan.md': '# Plan\n' } },
    { runId: 'run-002', taskId: 'fix', agentId: 'fixer-02', files: { 'workspace/src/a.ts': 'a\nB\nc\nd\n' } },
  ]);
  return project;
}

describe('logPath', () => {
  it('lists the versions of a path across runs, oldest first, with line counts', async () => {
    const project = await twoRunProject();
    const log = await logPath(project, 'workspace/src/a.ts');
    expect(log.path).toBe('workspace/src/a.ts');
    expect(log.problems).toEqual([]);
    expect(log.versions).toEqual([
      {
        artifactId: expect.stringMatching(/^art-[0-9a-f]{12}$/) as unknown,
        runId: 'run-001',
        taskId: 'build',
        agentId: 'builder-01',
        type: 'file',
        createdAt: '2026-03-01T10:00:00.000Z',
        contentHash: expect.stringMatching(/^sha256:/) as unknown,
        bytes: 6,
        linesAdded: 3,
        linesRemoved: 0,
      },
      {
        artifactId: expect.stringMatching(/^art-[0-9a-f]{12}$/) as unknown,
        runId: 'run-002',
        taskId: 'fix',
        agentId: 'fixer-02',
        type: 'file',
        createdAt: '2026-03-01T10:00:02.000Z',
        contentHash: expect.stringMatching(/^sha256:/) as unknown,
        bytes: 8,
        linesAdded: 2,
        linesRemoved: 1,
        previous: log.versions[0]?.artifactId,
      },
    ]);
  });

  it('lists a node document as a message', async () => {
    const project = await twoRunProject();
    const log = await logPath(project, 'docs/plan.md');
    expect(log.versions).toEqual([
      expect.objectContaining({ type: 'message', linesAdded: 1, runId: 'run-001' }),
    ]);
  });

  it.each([
    ['src/a.ts'],
    ['./workspace/src/a.ts'],
    ['workspace\\src\\a.ts'],
    ['<project>/workspace/src/a.ts'],
  ])('finds the same versions for %s', async (input) => {
    const project = await twoRunProject();
    const log = await logPath(project, input.replace('<project>', project));
    expect(log.path).toBe('workspace/src/a.ts');
    expect(log.versions).toHaveLength(2);
  });

  it('answers from the index alone: no object and no run file is read', async () => {
    const project = await twoRunProject();
    const before = await logPath(project, 'workspace/src/a.ts');
    await rm(join(project, '.agent/objects'), { recursive: true });
    // A folder where a run's records belong would make any read of it fail.
    await rm(join(project, '.agent/runs'), { recursive: true });
    await mkdir(join(project, '.agent/runs/run-001/artifacts.jsonl'), { recursive: true });
    expect(await logPath(project, 'workspace/src/a.ts')).toEqual(before);
  });

  it('returns no versions for a path never recorded', async () => {
    const project = await twoRunProject();
    expect(await logPath(project, 'src/never.ts')).toEqual({
      path: 'workspace/src/never.ts',
      versions: [],
      problems: [],
    });
  });

  it('returns no versions for a project without records', async () => {
    const project = await tempProject();
    expect((await logPath(project, 'src/a.ts')).versions).toEqual([]);
  });

  it('reports an unreadable line of the index file and lists the readable versions', async () => {
    const project = await twoRunProject();
    await appendFile(join(project, indexFileOf('workspace/src/a.ts')), 'garbage\n');
    const log = await logPath(project, 'src/a.ts');
    expect(log.versions).toHaveLength(2);
    expect(log.problems).toEqual([expect.objectContaining({ line: 3, code: 'invalid_json' })]);
  });

  it('does not list a record of another path that landed in the same index file', async () => {
    const project = await twoRunProject();
    const file = join(project, indexFileOf('workspace/src/a.ts'));
    const foreign = await readFile(join(project, indexFileOf('docs/plan.md')), 'utf8');
    await writeFile(file, foreign, { flag: 'a' });
    expect((await logPath(project, 'src/a.ts')).versions.map((version) => version.type)).toEqual([
      'file',
      'file',
    ]);
  });

  it('refuses a path outside the project with unknown_path', async () => {
    const project = await twoRunProject();
    await expect(logPath(project, '../../elsewhere/a.ts')).rejects.toBeInstanceOf(LineageError);
    await expect(logPath(project, '/etc/passwd')).rejects.toMatchObject({ code: 'unknown_path' });
  });
});
