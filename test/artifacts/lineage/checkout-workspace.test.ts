import { chmod, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkoutWorkspace } from '../../../src/artifacts/lineage/checkout-workspace.js';
import { LineageError } from '../../../src/artifacts/lineage/lineage-error.js';
import { UnknownRunError } from '../../../src/project/index.js';
import { readRunTimeline } from '../../../src/artifacts/lineage/read-run-timeline.js';
import { rebuildArtifactIndex } from '../../../src/artifacts/store/artifact-index.js';
import {
  LOGO_PNG,
  TEXT,
  lineageWriter,
  readTree,
  treeOf,
  twoRunProject,
} from '../../helpers/lineage-project.js';
import { tempProject } from '../../helpers/temp-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';

const RUN_1_FINAL = {
  'README.md': TEXT.readme1,
  'src/ui.ts': TEXT.ui,
  'src/api.ts': TEXT.api1,
  'src/shared.ts': TEXT.shared,
  'test/api.test.ts': TEXT.test2,
};

// Each row: the run, the step, and the workspace after it (docs/plan.md is a node document, not a workspace file).
const STEPS: [string, number, Record<string, string | Uint8Array>][] = [
  ['run-001', 0, {}],
  ['run-001', 1, { 'README.md': TEXT.readme1 }],
  ['run-001', 2, { 'README.md': TEXT.readme1, 'src/ui.ts': TEXT.ui }],
  // ui finished first; api's versions, recorded before ui's trace, belong to step 3.
  [
    'run-001',
    3,
    {
      'README.md': TEXT.readme1,
      'src/ui.ts': TEXT.ui,
      'src/api.ts': TEXT.api1,
      'src/shared.ts': TEXT.shared,
    },
  ],
  // The failed attempt is not a step: step 4 is its retry.
  ['run-001', 4, RUN_1_FINAL],
  ['run-002', 0, RUN_1_FINAL],
  ['run-002', 1, { ...RUN_1_FINAL, 'src/api.ts': TEXT.api2, 'assets/logo.png': LOGO_PNG }],
  // The interrupted ui2 execution (ui.ts v2) is in no step.
  [
    'run-002',
    2,
    { ...RUN_1_FINAL, 'src/api.ts': TEXT.api2, 'assets/logo.png': LOGO_PNG, 'README.md': TEXT.readme2 },
  ],
];

async function outsideDir(name = 'out'): Promise<string> {
  return path.join(await tempProject(), name);
}

async function refusal(promise: Promise<unknown>): Promise<LineageError> {
  const error = await promise.catch((caught: unknown) => caught);
  if (!(error instanceof LineageError)) throw new Error(`expected a LineageError, got ${String(error)}`);
  return error;
}

function objectFileOf(projectDir: string, hash: string): string {
  const hex = hash.slice('sha256:'.length);
  return path.join(projectDir, '.agent/objects/sha256', hex.slice(0, 2), hex.slice(2));
}

describe('checkoutWorkspace --step', () => {
  it.each(STEPS)('rebuilds %s step %i byte for byte', async (runId, step, files) => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    const checkout = await checkoutWorkspace(projectDir, { to, runId, step });
    expect(await readTree(to)).toEqual(treeOf(files));
    expect(checkout.to).toBe(to);
    expect(checkout.files.map((file) => file.path)).toEqual(Object.keys(files).sort());
    expect(checkout.cut).toMatchObject({ kind: 'step', runId, step });
  });

  it('dates step N at its trace and step 0 at the run start', async () => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-001');
    const step2 = await checkoutWorkspace(projectDir, {
      to: await outsideDir(),
      runId: parseRunId('run-001'),
      step: 2,
    });
    expect(step2.cut).toEqual({
      kind: 'step',
      runId: parseRunId('run-001'),
      step: 2,
      time: timeline.steps[1]?.trace!.createdAt,
    });
    const step0 = await checkoutWorkspace(projectDir, {
      to: await outsideDir(),
      runId: parseRunId('run-001'),
      step: 0,
    });
    expect(step0.cut).toEqual({
      kind: 'step',
      runId: parseRunId('run-001'),
      step: 0,
      time: timeline.startedAt,
    });
  });

  it('describes each file by the version it came from', async () => {
    const { projectDir } = await twoRunProject();
    const checkout = await checkoutWorkspace(projectDir, {
      to: await outsideDir(),
      runId: parseRunId('run-002'),
      step: 1,
    });
    expect(checkout.files.find((file) => file.path === 'src/api.ts')).toEqual({
      path: 'src/api.ts',
      artifactId: expect.stringMatching(/^art-[0-9a-f]{12}$/) as string,
      runId: parseRunId('run-002'),
      taskId: parseNodeId('fix'),
      contentHash: expect.stringMatching(/^sha256:/) as string,
      bytes: TEXT.api2.length,
    });
    expect(checkout.files.find((file) => file.path === 'README.md')).toMatchObject({
      runId: parseRunId('run-001'),
      taskId: parseNodeId('plan'),
    });
  });

  it('counts steps in the run with the latest start when no run is given', async () => {
    const { projectDir } = await twoRunProject();
    const checkout = await checkoutWorkspace(projectDir, { to: await outsideDir(), step: 1 });
    expect(checkout.cut).toMatchObject({ runId: parseRunId('run-002'), step: 1 });
  });

  it("includes another run's versions recorded up to the step's trace, and none after", async () => {
    const writer = await lineageWriter();
    const a1 = writer.start('run-a', 'one', 'agent');
    await a1.write({ 'a.txt': 'a1\n' });
    const b1 = writer.start('run-b', 'one', 'agent');
    await b1.write({ 'b.txt': 'b1\n', 'shared.txt': 'from b\n' });
    await a1.finish();
    const a2 = writer.start('run-a', 'two', 'agent');
    await b1.finish();
    await a2.write({ 'shared.txt': 'from a\n' });
    await a2.finish();
    await writer.close();
    const step = async (n: number): Promise<Map<string, Buffer>> => {
      const to = await outsideDir();
      await checkoutWorkspace(writer.projectDir, { to, runId: parseRunId('run-a'), step: n });
      return readTree(to);
    };
    expect(await step(0)).toEqual(treeOf({}));
    // run-b's versions were recorded before run-a's first trace, though run-b was still running.
    expect(await step(1)).toEqual(treeOf({ 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'shared.txt': 'from b\n' }));
    expect(await step(2)).toEqual(treeOf({ 'a.txt': 'a1\n', 'b.txt': 'b1\n', 'shared.txt': 'from a\n' }));
  });
});

describe('checkoutWorkspace reads only the objects it needs', () => {
  /** Deletes every object of the project except `keep`, and returns how many were deleted. */
  async function deleteObjectsExcept(projectDir: string, keep: ReadonlySet<string>): Promise<number> {
    let deleted = 0;
    const root = path.join(projectDir, '.agent', 'objects', 'sha256');
    for (const fanout of await readdir(root)) {
      for (const name of await readdir(path.join(root, fanout))) {
        if (keep.has(`sha256:${fanout}${name}`)) continue;
        await rm(path.join(root, fanout, name));
        deleted += 1;
      }
    }
    return deleted;
  }

  it("rebuilds a step with every other object gone but the run's traces", async () => {
    const { projectDir } = await twoRunProject();
    const first = await checkoutWorkspace(projectDir, {
      runId: parseRunId('run-002'),
      step: 1,
      to: await outsideDir(),
    });
    const timeline = await readRunTimeline(projectDir, 'run-002');
    const keep = new Set([
      ...first.files.map((file) => file.contentHash),
      ...timeline.steps.map((step) => step.trace!.contentHash),
    ]);
    expect(await deleteObjectsExcept(projectDir, keep)).toBeGreaterThan(0);
    const again = await checkoutWorkspace(projectDir, {
      runId: parseRunId('run-002'),
      step: 1,
      to: await outsideDir(),
    });
    expect(again.files).toEqual(first.files);
    expect(await readTree(again.to)).toEqual(await readTree(first.to));
  });

  it('rebuilds a time with every object gone but the ones it writes', async () => {
    const { projectDir, times } = await twoRunProject();
    const first = await checkoutWorkspace(projectDir, { at: times.betweenRuns, to: await outsideDir() });
    const keep = new Set(first.files.map((file) => file.contentHash));
    expect(await deleteObjectsExcept(projectDir, keep)).toBeGreaterThan(0);
    const again = await checkoutWorkspace(projectDir, { at: times.betweenRuns, to: await outsideDir() });
    expect(await readTree(again.to)).toEqual(await readTree(first.to));
  });
});

describe('checkoutWorkspace --at', () => {
  it('rebuilds the state between two runs as run 1 left it', async () => {
    const { projectDir, times } = await twoRunProject();
    const to = await outsideDir();
    const checkout = await checkoutWorkspace(projectDir, { to, at: times.betweenRuns });
    expect(await readTree(to)).toEqual(treeOf(RUN_1_FINAL));
    expect(checkout.cut).toEqual({ kind: 'at', time: times.betweenRuns });
  });

  it('includes every version recorded by then, a failed execution too', async () => {
    const { projectDir, times } = await twoRunProject();
    const to = await outsideDir();
    await checkoutWorkspace(projectDir, { to, at: times.afterFailure });
    expect(await readTree(to)).toEqual(treeOf({ ...RUN_1_FINAL, 'test/api.test.ts': TEXT.test1 }));
  });

  it('rebuilds the live workspace byte for byte after the last record, interrupted versions included', async () => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    await checkoutWorkspace(projectDir, { to, at: '2030-01-01T00:00:00Z' });
    expect(await readTree(to)).toEqual(await readTree(path.join(projectDir, 'workspace')));
    expect((await readTree(to)).get('src/ui.ts')?.toString()).toBe(TEXT.ui2);
  });

  it('accepts a time with a zone offset as the same instant', async () => {
    const { projectDir, times } = await twoRunProject();
    const utc = Date.parse(times.betweenRuns);
    const offset = new Date(utc + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const to = await outsideDir();
    await checkoutWorkspace(projectDir, { to, at: offset });
    expect(await readTree(to)).toEqual(treeOf(RUN_1_FINAL));
  });

  it("with a run, takes that run's versions up to the time and other runs' versions from before it started", async () => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    const checkout = await checkoutWorkspace(projectDir, {
      to,
      at: '2030-01-01T00:00:00Z',
      runId: parseRunId('run-001'),
    });
    expect(await readTree(to)).toEqual(treeOf(RUN_1_FINAL));
    expect(checkout.cut).toEqual({ kind: 'at', time: '2030-01-01T00:00:00Z', runId: parseRunId('run-001') });
  });

  it("with a run and a time before it started, takes other runs' versions up to the time only", async () => {
    const { projectDir, times } = await twoRunProject();
    const to = await outsideDir();
    await checkoutWorkspace(projectDir, { to, at: times.afterFailure, runId: parseRunId('run-002') });
    expect(await readTree(to)).toEqual(treeOf({ ...RUN_1_FINAL, 'test/api.test.ts': TEXT.test1 }));
  });

  it('creates an empty folder for a time before every record', async () => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    const checkout = await checkoutWorkspace(projectDir, { to, at: '2020-01-01T00:00:00Z' });
    expect(checkout.files).toEqual([]);
    expect(await readTree(to)).toEqual(new Map());
  });
});

describe('checkoutWorkspace refusals', () => {
  it.each([
    ['the project root', ''],
    ['the workspace', 'workspace'],
    ['a folder inside the workspace', 'workspace/old'],
    ['.agent', '.agent'],
    ['a folder inside .agent', '.agent/checkout'],
  ])('refuses %s as target_inside_project', async (_name, relative) => {
    const { projectDir } = await twoRunProject();
    const agent = await treeDigest(path.join(projectDir, '.agent'));
    const error = await refusal(
      checkoutWorkspace(projectDir, {
        to: path.join(projectDir, relative),
        runId: parseRunId('run-001'),
        step: 1,
      }),
    );
    expect(error.code).toBe('target_inside_project');
    expect(await treeDigest(path.join(projectDir, '.agent'))).toBe(agent);
  });

  it('refuses a target that reaches the workspace through a symlink', async () => {
    const { projectDir } = await twoRunProject();
    const parent = await tempProject();
    await symlink(path.join(projectDir, 'workspace'), path.join(parent, 'link'));
    const error = await refusal(
      checkoutWorkspace(projectDir, {
        to: path.join(parent, 'link', 'new'),
        runId: parseRunId('run-001'),
        step: 1,
      }),
    );
    expect(error.code).toBe('target_inside_project');
  });

  it('accepts a folder inside the project but outside workspace/ and .agent/', async () => {
    const { projectDir } = await twoRunProject();
    const to = path.join(projectDir, 'checkouts', 'step-1');
    await checkoutWorkspace(projectDir, { to, runId: parseRunId('run-001'), step: 1 });
    expect(await readFile(path.join(to, 'README.md'), 'utf8')).toBe(TEXT.readme1);
  });

  it('accepts an existing empty folder', async () => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    await mkdir(to);
    await checkoutWorkspace(projectDir, { to, runId: parseRunId('run-001'), step: 1 });
    expect(await readTree(to)).toEqual(treeOf({ 'README.md': TEXT.readme1 }));
  });

  it.each([
    [
      'a folder with a file',
      async (to: string) => {
        await mkdir(to);
        await writeFile(path.join(to, 'keep.txt'), 'keep');
      },
    ],
    [
      'a file',
      async (to: string) => {
        await writeFile(to, 'keep');
      },
    ],
  ])('refuses %s as target_not_empty and leaves it alone', async (_name, plant) => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    await plant(to);
    const before = await readTree(path.dirname(to));
    const error = await refusal(checkoutWorkspace(projectDir, { to, runId: parseRunId('run-001'), step: 1 }));
    expect(error.code).toBe('target_not_empty');
    expect(error.message).toContain('new or empty folder');
    expect(await readTree(path.dirname(to))).toEqual(before);
  });

  it.each([5, -1, 1.5])(
    'refuses step %s of a run with 4 completed steps as step_out_of_range',
    async (step) => {
      const { projectDir } = await twoRunProject();
      const to = await outsideDir();
      const error = await refusal(checkoutWorkspace(projectDir, { to, runId: parseRunId('run-001'), step }));
      expect(error.code).toBe('step_out_of_range');
      expect(error.message).toContain('steps 0 to 4');
      expect(await readTree(to)).toEqual(new Map());
    },
  );

  it.each([
    '2026-02-24',
    '2026-02-24T10:30:00',
    '2026-02-30T10:30:00Z',
    '2026-02-24T25:00:00Z',
    'yesterday',
    '1771929000000',
  ])('refuses --at %s as invalid_time', async (at) => {
    const { projectDir } = await twoRunProject();
    const error = await refusal(checkoutWorkspace(projectDir, { to: await outsideDir(), at }));
    expect(error.code).toBe('invalid_time');
    expect(error.message).toContain('2026-02-24T10:30:00Z');
  });

  it('refuses an unknown run with UnknownRunError', async () => {
    const { projectDir } = await twoRunProject();
    for (const options of [{ step: 1 }, { at: '2030-01-01T00:00:00Z' }]) {
      const error: unknown = await checkoutWorkspace(projectDir, {
        to: await outsideDir(),
        runId: parseRunId('run-404'),
        ...options,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(UnknownRunError);
      expect((error as UnknownRunError).code).toBe('unknown_run');
      expect((error as UnknownRunError).message).toBe(
        `no run "run-404" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
      );
    }
  });

  it('refuses a project without recorded runs as no_recorded_run', async () => {
    const projectDir = await tempProject();
    const error = await refusal(checkoutWorkspace(projectDir, { to: await outsideDir(), step: 0 }));
    expect(error.code).toBe('no_recorded_run');
  });

  it('throws for misuse: both or neither of step and at', async () => {
    const { projectDir } = await twoRunProject();
    const to = await outsideDir();
    await expect(checkoutWorkspace(projectDir, { to })).rejects.toThrow('exactly one of step and at');
    await expect(checkoutWorkspace(projectDir, { to, step: 1, at: '2030-01-01T00:00:00Z' })).rejects.toThrow(
      'exactly one of step and at',
    );
  });
});

describe('checkoutWorkspace with damaged objects', () => {
  it.each([
    [
      'corrupt_object',
      async (file: string) => {
        await chmod(file, 0o644);
        await writeFile(file, 'tampered\n');
      },
    ],
    [
      'missing_object',
      async (file: string) => {
        await rm(file);
      },
    ],
  ] as const)('refuses a %s naming the path and hash, and writes nothing', async (code, damage) => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-001');
    const shared = timeline.steps[2]?.artifacts.find((record) => record.path === 'workspace/src/shared.ts');
    if (shared === undefined) throw new Error('no shared.ts version');
    await damage(objectFileOf(projectDir, shared.contentHash));
    const to = await outsideDir();
    const error = await refusal(checkoutWorkspace(projectDir, { to, runId: parseRunId('run-001'), step: 4 }));
    expect(error.code).toBe(code);
    expect(error.message).toContain('workspace/src/shared.ts');
    expect(error.message).toContain(shared.contentHash);
    await expect(readFile(to)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('leaves an existing empty target empty when an object is corrupt', async () => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-002');
    const readme = timeline.steps[1]?.artifacts[0];
    if (readme === undefined) throw new Error('no README version');
    const file = objectFileOf(projectDir, readme.contentHash);
    await chmod(file, 0o644);
    await writeFile(file, 'tampered\n');
    const to = await outsideDir();
    await mkdir(to);
    const error = await refusal(checkoutWorkspace(projectDir, { to, at: '2030-01-01T00:00:00Z' }));
    expect(error.code).toBe('corrupt_object');
    expect(await readTree(to)).toEqual(new Map());
  });

  it('refuses to count steps past an unreadable trace', async () => {
    const { projectDir } = await twoRunProject();
    const timeline = await readRunTimeline(projectDir, 'run-001');
    const trace = timeline.steps[0]?.trace;
    if (trace == null) throw new Error('no trace');
    const file = objectFileOf(projectDir, trace.contentHash);
    await chmod(file, 0o644);
    await writeFile(file, 'tampered\n');
    const error = await refusal(
      checkoutWorkspace(projectDir, { to: await outsideDir(), runId: parseRunId('run-001'), step: 1 }),
    );
    expect(error.code).toBe('corrupt_object');
    expect(error.message).toContain('--at');
  });
});

describe('checkoutWorkspace with a record whose path no writer records', () => {
  it.each([
    ['out of the workspace by ..', 'workspace/../../../../../../tmp/planted'],
    ['into .git', 'workspace/.git/hooks/pre-commit'],
    ['with a NUL', 'workspace/a\u0000b.ts'],
    ['with a backslash', 'workspace/..\\evil.ts'],
    ['with a bidi control', 'workspace/a\u202eb.ts'],
  ])('refuses one %s with unsafe_record_path, naming it, and writes nothing', async (_what, bad) => {
    const { projectDir } = await twoRunProject();
    const recordsFile = path.join(projectDir, '.agent/runs/run-002/artifacts.jsonl');
    const lines = (await readFile(recordsFile, 'utf8')).trimEnd().split('\n');
    const index = lines.findIndex((line) => line.includes('"path":"workspace/'));
    const original = JSON.parse(lines[index]!) as { artifactId: string };
    lines[index] = JSON.stringify({ ...original, path: bad });
    await writeFile(recordsFile, `${lines.join('\n')}\n`);
    await rebuildArtifactIndex(projectDir);
    for (const useIndexes of [true, false]) {
      const to = await outsideDir();
      const error = await refusal(
        checkoutWorkspace(projectDir, { to, at: '2030-01-01T00:00:00Z', useIndexes }),
      );
      expect(error.code).toBe('unsafe_record_path');
      expect(error.message).toContain(original.artifactId);
      expect(error.message).toMatch(/rule workspace_file/);
      expect(error.message).toContain('nothing was written');
      await expect(readFile(to)).rejects.toMatchObject({ code: 'ENOENT' });
    }
  });
});

describe('checkoutWorkspace is read-only for the project', () => {
  it('leaves .agent/ and the workspace byte-identical', async () => {
    const { projectDir, times } = await twoRunProject();
    const agent = await treeDigest(path.join(projectDir, '.agent'));
    const workspace = await treeDigest(path.join(projectDir, 'workspace'));
    for (const [runId, step] of STEPS)
      await checkoutWorkspace(projectDir, { to: await outsideDir(), runId, step });
    await checkoutWorkspace(projectDir, { to: await outsideDir(), at: times.betweenRuns });
    await refusal(checkoutWorkspace(projectDir, { to: path.join(projectDir, 'workspace'), step: 1 }));
    expect(await treeDigest(path.join(projectDir, '.agent'))).toBe(agent);
    expect(await treeDigest(path.join(projectDir, 'workspace'))).toBe(workspace);
  });
});
