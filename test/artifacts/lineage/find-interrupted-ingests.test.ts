import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findInterruptedIngests } from '../../../src/artifacts/lineage/find-interrupted-ingests.js';
import { parseRunId } from '../../../src/project/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const run = parseRunId('r1');

const started = (node: string, doc: string, paths: string[], ts = '2026-01-01T00:00:00.000Z') => ({
  level: 'INFO',
  ts,
  event: 'ingest.started',
  run_id: 'r1',
  node_id: node,
  doc_path: doc,
  planned: paths.length,
  planned_paths: paths,
});
const summary = (node: string, doc: string, dryRun = false) => ({
  level: 'INFO',
  event: 'ingest.summary',
  run_id: 'r1',
  node_id: node,
  doc_path: doc,
  dry_run: dryRun,
});

async function projectWithEvents(lines: readonly (object | string)[]): Promise<string> {
  const project = await tempProject();
  await mkdir(join(project, '.agent/runs/r1'), { recursive: true });
  const text = lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n');
  await writeFile(join(project, '.agent/runs/r1/events.jsonl'), `${text}\n`);
  return project;
}

describe('findInterruptedIngests', () => {
  it.each([
    ['a started ingest with its summary', [started('n', 'd.md', ['workspace/a']), summary('n', 'd.md')], []],
    ['a started ingest without a summary', [started('n', 'd.md', ['workspace/a'])], ['n d.md']],
    [
      'a killed ingest completed by a later re-run of the same node and document',
      [started('n', 'd.md', ['workspace/a']), started('n', 'd.md', ['workspace/a']), summary('n', 'd.md')],
      [],
    ],
    [
      'a summary of another node or document completes nothing',
      [started('n', 'd.md', ['workspace/a']), summary('m', 'd.md'), summary('n', 'e.md')],
      ['n d.md'],
    ],
    [
      'a summary written before the start is an earlier ingest',
      [summary('n', 'd.md'), started('n', 'd.md', ['workspace/a'])],
      ['n d.md'],
    ],
    [
      'a dry run completes nothing',
      [started('n', 'd.md', ['workspace/a']), summary('n', 'd.md', true)],
      ['n d.md'],
    ],
    [
      'torn and foreign lines are skipped',
      [
        '{"event":"ingest.started","node_id":',
        '{"event":"node.started"}',
        started('n', 'd.md', ['workspace/a']),
      ],
      ['n d.md'],
    ],
  ])('%s', async (_name, lines, expected) => {
    const project = await projectWithEvents(lines);
    const found = await findInterruptedIngests(project, run);
    expect(found.map((ingest) => `${ingest.nodeId} ${ingest.docPath}`)).toEqual(expected);
  });

  it('names the run, node, document, start and planned paths', async () => {
    const project = await projectWithEvents([
      started('n', 'docs/d.md', ['workspace/a.ts', 'workspace/b.ts'], '2026-02-03T04:05:06.000Z'),
    ]);
    expect(await findInterruptedIngests(project, run)).toEqual([
      {
        runId: 'r1',
        nodeId: 'n',
        docPath: 'docs/d.md',
        planned: 2,
        plannedPaths: ['workspace/a.ts', 'workspace/b.ts'],
        ts: '2026-02-03T04:05:06.000Z',
      },
    ]);
  });

  it('finds nothing in a run without an event log', async () => {
    const project = await tempProject();
    await mkdir(join(project, '.agent/runs/r1'), { recursive: true });
    expect(await findInterruptedIngests(project, run)).toEqual([]);
  });
});
