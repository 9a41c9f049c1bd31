import { existsSync } from 'node:fs';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkoutWorkspace,
  createMemoryStore,
  facetSourcesFor,
  ingestDocument,
  logPath,
  openLineageEventsOf,
  openProject,
  readRunReport,
  replayRun,
  verifyArtifacts,
} from '../../src/index.js';
import type { Project } from '../../src/index.js';
import { tempProject } from '../helpers/temp-project.js';

// Spec storage.md Part 1: a library user ingests, replays, logs, checks out, verifies and reports with the runs kept
// in memory: the files land in workspace/, and nothing at all is written under .agent/.

const fence = '```';
const documentOf = (body: string): string => `# step\n\n${fence}ts file=src/x.ts\n${body}\n${fence}\n`;

const scratch: string[] = [];
afterEach(async () => {
  await Promise.all(scratch.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A project on a memory store with one run of two ingests of docs/a.md: src/x.ts written, then changed. */
async function ingestedTwice(): Promise<{ dir: string; project: Project }> {
  const dir = await tempProject({ 'docs/a.md': documentOf('export const x = 1;') });
  const project = openProject(dir, { store: createMemoryStore() });
  const first = await ingestDocument({
    projectDir: project,
    docPath: 'docs/a.md',
    runId: 'r1',
    nodeId: 'n1',
  });
  expect(first.summary).toMatchObject({ written: 1, rejected: 0 });
  await writeFile(path.join(dir, 'docs/a.md'), documentOf('export const x = 2;'));
  await ingestDocument({ projectDir: project, docPath: 'docs/a.md', runId: 'r1', nodeId: 'n2' });
  return { dir, project };
}

describe('a project whose runs are kept in a memory store', () => {
  it('ingests into workspace/ and records the versions, with nothing under .agent/', async () => {
    const { dir, project } = await ingestedTwice();
    expect(await readFile(path.join(dir, 'workspace/src/x.ts'), 'utf8')).toBe('export const x = 2;\n');
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['docs', 'workspace']));
    // The store holds what the files store would have written: records, manifests, events, objects.
    const runFiles = await project.store.list('.agent/runs/r1');
    expect(runFiles.map((entry) => entry.name)).toEqual(
      expect.arrayContaining(['artifacts.jsonl', 'events.jsonl', 'manifests']),
    );
  });

  it('logs and replays the path, with the diff between its two versions', async () => {
    const { dir, project } = await ingestedTwice();
    const log = await logPath(project, 'workspace/src/x.ts');
    expect(log.versions.map((version) => [version.runId, version.taskId])).toEqual([
      ['r1', 'n1'],
      ['r1', 'n2'],
    ]);
    const forward = await replayRun(project, 'r1');
    expect(forward.kind).toBe('ingest');
    expect(forward.steps.map((step) => step.taskId)).toEqual(['n1', 'n2']);
    const backward = await replayRun(project, 'r1', { backward: true });
    const newest = backward.steps[0]?.artifacts[0];
    expect(newest?.diff).toMatchObject({ kind: 'text' });
    expect(newest?.diff?.kind === 'text' && newest.diff.patch).toContain('+export const x = 2;');
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });

  it('checks out each step from the stored objects', async () => {
    const { dir, project } = await ingestedTwice();
    const to = await mkdtemp(path.join(tmpdir(), 'ai-checkout-'));
    scratch.push(to);
    const target = path.join(to, 'step1');
    const checkout = await checkoutWorkspace(project, { to: target, step: 1, runId: 'r1' });
    expect(checkout.files.map((file) => file.path)).toEqual(['src/x.ts']);
    expect(await readFile(path.join(target, 'src/x.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });

  it('verifies the records, objects and workspace, and finds a file changed by hand', async () => {
    const { dir, project } = await ingestedTwice();
    const clean = await verifyArtifacts(project);
    expect(clean).toMatchObject({ errors: 0, runs: 1, objects: { checked: 2, ok: 2 } });
    await writeFile(path.join(dir, 'workspace/src/x.ts'), 'changed by hand\n');
    const drifted = await verifyArtifacts(project);
    expect(drifted.problems.map((problem) => problem.code)).toEqual(['workspace_modified']);
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });

  it('reports the run and exports it as OpenLineage events', async () => {
    const { dir, project } = await ingestedTwice();
    const report = await readRunReport(project, 'r1');
    expect(report.run.kind).toBe('ingest');
    expect(report.steps.map((step) => step.id)).toEqual(['n1', 'n2']);
    expect(report.steps[1]?.files.map((file) => file.path)).toEqual(['workspace/src/x.ts']);
    const events = openLineageEventsOf(report, facetSourcesFor('0.0.0'));
    expect(events.length).toBeGreaterThan(0);
    expect(existsSync(path.join(dir, '.agent'))).toBe(false);
  });

  it('keeps two projects on two memory stores apart', async () => {
    const { project } = await ingestedTwice();
    const other = openProject(await tempProject(), { store: createMemoryStore() });
    await expect(replayRun(other, 'r1')).rejects.toMatchObject({ name: 'UnknownRunError' });
    expect((await replayRun(project, 'r1')).steps).toHaveLength(2);
  });
});
