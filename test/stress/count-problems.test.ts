import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  countDrift,
  countUnreadableRecordLines,
  findEscapes,
  findStaleTemps,
  findTornFiles,
  sha256Of,
  snapshotTree,
} from './count-problems.js';
import {
  countNodeEventLines,
  countOversized,
  EVENT_LINES_ABOVE_MAX_BLOCKS,
  judgeCallOutcome,
  judgeCliExit,
  manifestEntries,
} from './count-document-problems.js';
import {
  countDuplicatePasses,
  countLostEvents,
  countLostUpdates,
  countMissingSnapshots,
  countOutsideBytes,
  passesOfState,
  readProjectRecords,
  snapshotFileOf,
} from './count-workflow-problems.js';
import type { ShapeStep } from './count-workflow-problems.js';
import {
  blankLinesInNestedQuotedList,
  deepBlockQuotes,
  deepLists,
  hostileDocuments,
  nearMissOpeners,
  unterminatedFences,
  VALID_BLOCK,
} from './hostile-documents.js';
import { hostilePaths, HOSTILE_PATH_FAMILIES } from './hostile-paths.js';

describe('the stress counts find each planted problem', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'artifact-ingest-stress-count-'));
    await mkdir(path.join(root, 'project/workspace/s'), { recursive: true });
    await mkdir(path.join(root, 'project/.agent/runs/r1'), { recursive: true });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('finds a torn file, and not an intact one or an absent one', async () => {
    const allowed = new Map([
      ['s/a.txt', new Set([sha256Of('old\n'), sha256Of('new\n')])],
      ['s/b.txt', new Set([sha256Of('new\n')])],
      ['s/gone.txt', new Set([sha256Of('new\n')])],
    ]);
    await writeFile(path.join(root, 'project/workspace/s/a.txt'), 'old\n');
    await writeFile(path.join(root, 'project/workspace/s/b.txt'), 'ne');
    expect(await findTornFiles(path.join(root, 'project/workspace'), allowed)).toEqual(['s/b.txt']);
  });

  it('finds an escape outside the allowed folders, a symlink included, and nothing inside them', async () => {
    const before = await snapshotTree(root);
    await writeFile(path.join(root, 'project/workspace/s/inside.txt'), 'in');
    await writeFile(path.join(root, 'escaped.txt'), 'out');
    await symlink('/etc', path.join(root, 'project/planted'));
    const after = await snapshotTree(root);
    expect(findEscapes(before, after, ['project/workspace', 'project/.agent']).sort()).toEqual([
      'escaped.txt',
      'project/planted',
    ]);
  });

  it.each([
    ['a torn last line', '{"a":1}\n{"b":', 1],
    ['a line joined to a torn one', '{"a":1}\n{"b":{"c":1}\n', 1],
    ['a line that is JSON but not an object', '{"a":1}\n42\n', 1],
    ['intact lines', '{"a":1}\n{"b":2}\n', 0],
    ['an empty file', '', 0],
  ])('counts unreadable record lines: %s', async (_name, text, expected) => {
    await writeFile(path.join(root, 'project/.agent/runs/r1/events.jsonl'), text);
    await writeFile(path.join(root, 'project/.agent/runs/r1/artifacts.jsonl'), text);
    expect(await countUnreadableRecordLines(path.join(root, 'project'))).toBe(expected * 2);
  });

  it("finds the writer's temp files, and not look-alikes", async () => {
    await writeFile(path.join(root, 'project/workspace/s/.artifact-ingest-0123456789abcdef.tmp'), '');
    await writeFile(path.join(root, 'project/workspace/s/.artifact-ingest-notatemp.tmp'), '');
    expect(findStaleTemps(await snapshotTree(path.join(root, 'project')))).toEqual([
      'workspace/s/.artifact-ingest-0123456789abcdef.tmp',
    ]);
  });

  it.each([
    ['errors in the report', '{"errors":3,"warnings":1}', 3],
    ['a clean report', '{"errors":0,"warnings":2}', 0],
    ['output that is not a report', 'Error: boom', 1],
  ])('counts drift from verify --json: %s', (_name, output, expected) => {
    expect(countDrift(output)).toBe(expected);
  });

  it('draws hostile paths from every family, the same ones for the same seed', () => {
    const paths = hostilePaths(2000);
    expect(paths).toEqual(hostilePaths(2000));
    expect(new Set(paths.map((entry) => entry.replace(/\d+/gu, 'N'))).size).toBe(HOSTILE_PATH_FAMILIES);
  });
});

/** One events.jsonl line of a pass's step event. */
function stepEvent(event: 'step.started' | 'step.completed', step: string, pass?: number): string {
  return JSON.stringify({ level: 'INFO', event, run_id: 'r', step, ...(pass === undefined ? {} : { pass }) });
}

/** Every step event of the passes given, in order. */
function stepEvents(passes: readonly (readonly [string, number?])[]): string {
  return passes
    .flatMap(([step, pass]) => [
      stepEvent('step.started', step, pass),
      stepEvent('step.completed', step, pass),
    ])
    .join('\n');
}

const SHAPE: readonly ShapeStep[] = [
  { id: 'plan', type: 'action' },
  { id: 'build', type: 'loop' },
  { id: 'polish', type: 'ralph', n: 2 },
  { id: 'review', type: 'action' },
];
const TASKS = { build: ['a', 'b', 'c'] };
const ALL_PASSES: readonly (readonly [string, number?])[] = [
  ['plan'],
  ['build', 1],
  ['build', 2],
  ['build', 3],
  ['polish', 1],
  ['polish', 2],
  ['review'],
];

describe('the MCP scenarios count each planted problem', () => {
  let root: string;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'artifact-ingest-stress-count-'));
    await mkdir(path.join(root, 'project/.agent/runs/r1'), { recursive: true });
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('reads the passes a state says are done and the one it is in', () => {
    const inLoop = { status: 'running', step_index: 1, task: { index: 2, total: 3 }, tasks: TASKS };
    expect(passesOfState(inLoop, SHAPE)).toEqual({
      done: [{ step: 'plan' }, { step: 'build', pass: 1 }],
      current: { step: 'build', pass: 2 },
    });
    expect(
      passesOfState({ status: 'running', step_index: 2, ralphIteration: 1, tasks: TASKS }, SHAPE),
    ).toEqual({
      done: [{ step: 'plan' }, ...[1, 2, 3].map((pass) => ({ step: 'build', pass }))],
      current: { step: 'polish', pass: 1 },
    });
    expect(passesOfState({ status: 'complete', step_index: 3, tasks: TASKS }, SHAPE).done).toHaveLength(7);
  });

  it.each([
    [
      'a complete run with every event',
      { status: 'complete', step_index: 3, tasks: TASKS },
      stepEvents(ALL_PASSES),
      0,
    ],
    [
      'a complete run missing one pass (state committed, events not appended)',
      { status: 'complete', step_index: 3, tasks: TASKS },
      stepEvents(ALL_PASSES.filter(([step, pass]) => !(step === 'build' && pass === 2))),
      2,
    ],
    [
      'a running pass without its step.started',
      { status: 'running', step_index: 1, task: { index: 2, total: 3 }, tasks: TASKS },
      stepEvents([['plan'], ['build', 1]]),
      1,
    ],
    [
      'a running pass with its step.started',
      { status: 'running', step_index: 1, task: { index: 2, total: 3 }, tasks: TASKS },
      `${stepEvents([['plan'], ['build', 1]])}\n${stepEvent('step.started', 'build', 2)}`,
      0,
    ],
    [
      'a torn events line among them',
      { status: 'running', step_index: 0 },
      `${stepEvent('step.started', 'plan')}\n{"torn":`,
      0,
    ],
  ])('counts lost events: %s', (_name, state, events, expected) => {
    expect(countLostEvents(state, SHAPE, events)).toBe(expected);
  });

  it('counts passes whose start snapshot is missing', async () => {
    const project = path.join(root, 'project');
    const passes = [{ step: 'plan' }, { step: 'build', pass: 1 }, { step: 'build', pass: 2 }];
    expect(snapshotFileOf('r1', { step: 'build', pass: 1 })).toBe('.agent/runs/r1/snapshots/build-1.json');
    await mkdir(path.join(project, '.agent/runs/r1/snapshots'), { recursive: true });
    await writeFile(path.join(project, snapshotFileOf('r1', { step: 'plan' })), '{}');
    await writeFile(path.join(project, snapshotFileOf('r1', { step: 'build', pass: 2 })), '{}');
    expect(await countMissingSnapshots(project, 'r1', passes)).toBe(1);
  });

  it.each([
    ['every acknowledged output saved with its step.completed', ['t1', 't2'], ['out t1', 'out t2'], 2, 0],
    ['an acknowledged output the state lost', ['t1', 't2'], ['out t1'], 1, 1],
    ['an output saved without its step.completed', ['t1', 't2'], ['out t1', 'out t2'], 1, 1],
    ['an output overwritten by the other server', ['t1', 't2'], ['out t2'], 1, 1],
  ])('counts lost updates: %s', (_name, acknowledged, saved, passesWithEvents, expected) => {
    const events = stepEvents([1, 2].slice(0, passesWithEvents).map((pass) => ['grind', pass] as const));
    expect(countLostUpdates(acknowledged, saved, 'grind', events)).toBe(expected);
  });

  it.each([
    [
      'distinct passes',
      ['out t1', 'out t2'],
      stepEvents([
        ['grind', 1],
        ['grind', 2],
      ]),
      0,
    ],
    [
      'a pass completed twice',
      ['out t1', 'out t2'],
      `${stepEvents([
        ['grind', 1],
        ['grind', 2],
      ])}\n${stepEvent('step.completed', 'grind', 2)}`,
      1,
    ],
    [
      'one output saved twice',
      ['out t1', 'out t1'],
      stepEvents([
        ['grind', 1],
        ['grind', 2],
      ]),
      1,
    ],
  ])('counts duplicate passes: %s', (_name, saved, events, expected) => {
    expect(countDuplicatePasses(['t1', 't2'], saved, events)).toBe(expected);
  });

  it('counts records holding an outside file bytes, across the runs of a project', async () => {
    const project = path.join(root, 'project');
    const inside = sha256Of('inside\n');
    const outside = sha256Of('outside\n');
    const record = (hash: string): string =>
      `${JSON.stringify({ artifactId: 'art-000000000000', path: 'notes/f.txt', contentHash: `sha256:${hash}` })}\n`;
    await writeFile(path.join(project, '.agent/runs/r1/artifacts.jsonl'), record(inside) + record(outside));
    await mkdir(path.join(project, '.agent/runs/r2'), { recursive: true });
    await writeFile(path.join(project, '.agent/runs/r2/artifacts.jsonl'), record(outside));
    await mkdir(path.join(project, '.agent/runs/r3'), { recursive: true });
    expect(countOutsideBytes(await readProjectRecords(project), new Set([outside]))).toBe(2);
  });
});

describe('the hostile-document scenario counts each planted problem', () => {
  it.each([
    ['an exit the design gives', { code: 0, signal: null, capped: false }, 'ok'],
    ['an exit code it does not give', { code: 134, signal: null, capped: false }, 'crash'],
    ['an OOM abort', { code: null, signal: 'SIGABRT', capped: false }, 'crash'],
    ['a child killed at its time cap', { code: null, signal: 'SIGKILL', capped: true }, 'hang'],
  ])('judges a CLI child: %s', (_name, exit, expected) => {
    expect(judgeCliExit(exit, [0])).toBe(expected);
  });

  it.each([
    ['result', 'ok'],
    ['died', 'crash'],
    ['capped', 'hang'],
  ] as const)('judges a server call that %s', (kind, expected) => {
    expect(judgeCallOutcome(kind)).toBe(expected);
  });

  it.each([
    ['max_blocks + 1 entries and a few events', 6, 5 + EVENT_LINES_ABOVE_MAX_BLOCKS, 0],
    ['an entry per candidate past the limit', 7, 5, 1],
    ['an event line per candidate past the limit', 3, 6 + EVENT_LINES_ABOVE_MAX_BLOCKS, 1],
    ['both', 70, 70, 2],
  ])('counts an oversized result: %s', (_name, entries, lines, expected) => {
    const manifest = JSON.stringify({ artifacts: Array.from({ length: entries }, () => ({})) });
    const events = Array.from({ length: lines }, () =>
      JSON.stringify({ event: 'ingest.block', node_id: 'h' }),
    )
      .concat([JSON.stringify({ event: 'ingest.block', node_id: 'other' })])
      .join('\n');
    expect(manifestEntries(manifest)).toBe(entries);
    expect(countNodeEventLines(events, 'h')).toBe(lines);
    expect(countOversized(manifest, events, 'h', 5)).toBe(expected);
  });

  it('reads a missing or torn manifest as no entries', () => {
    expect(manifestEntries(undefined)).toBeUndefined();
    expect(manifestEntries('{"artifacts":[')).toBeUndefined();
  });

  it('builds hostile documents of the sizes and shapes named, each starting or ending with the valid block', () => {
    const mib = 1024 * 1024;
    const nearMiss = nearMissOpeners(mib);
    expect(nearMiss.length).toBeLessThanOrEqual(mib);
    expect(nearMiss.length).toBeGreaterThan(mib - 10);
    expect(nearMiss.startsWith(VALID_BLOCK)).toBe(true);
    expect(nearMiss.split('```x=').length - 1).toBe(Math.floor((mib - VALID_BLOCK.length - 1) / 10));
    expect(unterminatedFences(1000).endsWith('- ```x=\n')).toBe(true);
    expect(deepBlockQuotes(3)).toBe(`${VALID_BLOCK}\n> > > \`\`\`x=\nq\n\`\`\`\n`);
    expect(deepLists(2)).toBe(`${VALID_BLOCK}\n* a\n  * a\n    \`\`\`x=\n    l\n`);
    expect(blankLinesInNestedQuotedList(2)).toBe(`> - - x\n>\n>\n\n${VALID_BLOCK}`);
    const documents = hostileDocuments();
    expect(documents.map((document) => document.name)).toHaveLength(7);
    expect(documents.every((document) => document.text.length < 16 * mib)).toBe(true);
  });
});
