import { spawn } from 'node:child_process';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bundleRun, importBundle, rebuildArtifactIndex } from '../../../src/artifacts/index.js';
import { checkoutWorkspace } from '../../../src/artifacts/lineage/checkout-workspace.js';
import type { CheckoutOptions } from '../../../src/artifacts/lineage/checkout-workspace.js';
import { verifyArtifacts } from '../../../src/artifacts/lineage/verify-artifacts.js';
import { readArtifactRecords, readHistoryCut } from '../../../src/artifacts/store/index.js';
import {
  HISTORY_META_PATH,
  HISTORY_SEGMENTS_PATH,
  historyHeadsPath,
  historySegmentPath,
  readHistorySegments,
} from '../../../src/artifacts/store/history-journal.js';
import { RUN_ORDER_INDEX_PATH } from '../../../src/project/index.js';
import { recordInterleavedRuns } from '../../helpers/history-project.js';
import { tempProject } from '../../helpers/temp-project.js';
import { atScale } from '../../helpers/test-scale.js';

const EVERYTHING = { headsBefore: Infinity, until: Infinity };

/** A project of 10 interleaved runs (with tied times) and an old run imported from a bundle after them. */
async function historyProject(): Promise<{ project: string; runs: string[] }> {
  const project = await tempProject();
  const runs = await recordInterleavedRuns(project, { runs: 10, steps: 6, files: 12, pool: 40 });
  const old = await tempProject();
  await recordInterleavedRuns(old, {
    runs: 1,
    steps: 3,
    files: 5,
    pool: 40,
    prefix: 'old',
    startAt: '2026-04-30T00:00:00.000Z',
  });
  const bundle = path.join(await tempProject(), 'old.tgz');
  await bundleRun(old, 'old-000', bundle);
  await importBundle(project, bundle);
  return { project, runs: [...runs, 'old-000'] };
}

/** Checks out `options` through the indexes and through a read of every run, and expects the same answer. */
async function expectSameCheckout(project: string, options: Omit<CheckoutOptions, 'to'>): Promise<void> {
  const out = await tempProject();
  const indexed = await checkoutWorkspace(project, { ...options, to: path.join(out, 'indexed') });
  const full = await checkoutWorkspace(project, {
    ...options,
    useIndexes: false,
    to: path.join(out, 'full'),
  });
  expect({ cut: indexed.cut, files: indexed.files }).toEqual({ cut: full.cut, files: full.files });
}

/** Every distinct `createdAt` of the runs, sorted. */
async function recordTimes(project: string, runs: readonly string[]): Promise<string[]> {
  const times = new Set<string>();
  for (const runId of runs)
    for (const record of (await readArtifactRecords(project, runId)).records) times.add(record.createdAt);
  return [...times].sort();
}

async function expectSameAnswers(project: string, runs: readonly string[]): Promise<void> {
  // npm test checks the first run and the imported one at every step and every 183rd time; the scale run more.
  const sampled = atScale([runs[0], 'old-000'], [runs[0], runs[4], runs[9], 'old-000']) as string[];
  for (const runId of sampled) {
    const steps = runId === 'old-000' ? 3 : 6;
    for (let step = 0; step <= steps; step++) await expectSameCheckout(project, { runId, step });
  }
  await expectSameCheckout(project, { step: 2 });
  const times = await recordTimes(project, runs);
  const stride = atScale(183, 61);
  const picked = times.filter((_, index) => index % stride === 0).concat(times.at(-1) ?? '');
  for (const at of picked) {
    await expectSameCheckout(project, { at });
    await expectSameCheckout(project, { at, runId: runs[5] as string });
  }
}

describe('checkout through the run indexes', () => {
  it('answers every step and time as a read of every run does, with ties and an imported old run', async () => {
    const { project, runs } = await historyProject();
    // The journal answers (it is not a fallback that makes the answers equal) and has rolled segments.
    expect(await readHistoryCut(project, EVERYTHING)).toBeDefined();
    expect((await readHistorySegments(project)).segments.length).toBeGreaterThanOrEqual(2);
    await expectSameAnswers(project, runs);
    const verify = await verifyArtifacts(project);
    expect(verify.problems.filter((problem) => problem.code.startsWith('index_'))).toEqual([]);
  }, 120_000);

  it('reads every run when a journal line is corrupt, and answers the same', async () => {
    const { project, runs } = await historyProject();
    const { segments } = await readHistorySegments(project);
    await appendFile(path.join(project, historySegmentPath(segments.length)), 'not json\n');
    const heads = path.join(project, historyHeadsPath(0));
    await writeFile(heads, `{"broken":${(await readFile(heads, 'utf8')).slice(1)}`);
    expect(await readHistoryCut(project, EVERYTHING)).toBeUndefined();
    await expectSameAnswers(project, runs);
    const verify = await verifyArtifacts(project);
    expect(verify.problems).toContainEqual(
      expect.objectContaining({ code: 'invalid_record_line', severity: 'warning' }),
    );
  }, 120_000);

  it('survives a crash between writing a heads file and committing it, and a torn commit line', async () => {
    const { project, runs } = await historyProject();
    const file = path.join(project, HISTORY_SEGMENTS_PATH);
    const lines = (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
    // As a crash leaves it: the last heads file written, its entry not appended (and then half of one).
    await writeFile(file, `${lines.slice(0, -1).join('\n')}\n${(lines.at(-1) ?? '').slice(0, 12)}`);
    expect(await readHistoryCut(project, EVERYTHING)).toBeDefined();
    await expectSameAnswers(project, runs);
    // The next records land in the still-open segment, whose next roll commits it again.
    await recordInterleavedRuns(project, {
      runs: 2,
      steps: 3,
      files: 12,
      pool: 40,
      prefix: 'late',
      startAt: '2026-06-01T00:00:00.000Z',
    });
    const after = await readHistorySegments(project);
    expect(after.ordered).toBe(true);
    expect(after.segments.length).toBeGreaterThanOrEqual(lines.length);
    await expectSameAnswers(project, runs);
  }, 120_000);

  it('reads every run in a project without the marker, says so in verify, and reindex restores the index', async () => {
    const { project, runs } = await historyProject();
    await rm(path.join(project, HISTORY_META_PATH));
    await rm(path.join(project, RUN_ORDER_INDEX_PATH));
    expect(await readHistoryCut(project, EVERYTHING)).toBeUndefined();
    await expectSameAnswers(project, runs);
    const stale = await verifyArtifacts(project);
    expect(stale.problems).toContainEqual(
      expect.objectContaining({
        code: 'index_stale',
        severity: 'warning',
        message: expect.stringContaining("run 'artifact-ingest reindex'") as unknown,
      }),
    );
    await rebuildArtifactIndex(project);
    expect(await readHistoryCut(project, EVERYTHING)).toBeDefined();
    await expectSameAnswers(project, runs);
    const fresh = await verifyArtifacts(project);
    expect(fresh.problems.filter((problem) => problem.code.startsWith('index_'))).toEqual([]);
  }, 120_000);

  it('rebuilds every index from nothing with reindex', async () => {
    const { project, runs } = await historyProject();
    await rm(path.join(project, '.agent', 'index'), { recursive: true });
    expect(await readHistoryCut(project, EVERYTHING)).toBeUndefined();
    const rebuilt = await rebuildArtifactIndex(project);
    expect(rebuilt.historySegments).toBeGreaterThanOrEqual(2);
    expect(await readHistoryCut(project, EVERYTHING)).toBeDefined();
    await expectSameAnswers(project, runs);
    const verify = await verifyArtifacts(project);
    expect(verify.problems.filter((problem) => problem.code.startsWith('index_'))).toEqual([]);
  }, 120_000);

  it('stays exact or says it is stale after a recorder is killed with SIGKILL mid-recording', async () => {
    const project = await tempProject();
    const script = fileURLToPath(new URL('../../helpers/record-forever.ts', import.meta.url));
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const child = spawn(process.execPath, ['--import', tsx, script, project], { stdio: 'ignore' });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    // Long enough for rolls (each step of 12 files is ~6 KB of journal; a roll every ~22 steps).
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      await sleep(200);
      if ((await readHistorySegments(project)).segments.length >= 2) break;
    }
    child.kill('SIGKILL');
    await exited;
    expect((await readHistorySegments(project)).segments.length).toBeGreaterThanOrEqual(2);
    const verify = await verifyArtifacts(project);
    const drift = verify.problems.filter((problem) => problem.code.startsWith('index_'));
    if (drift.length === 0) {
      // The kill fell between two records: the journal holds exactly the runs' versions.
      await expectSameCheckout(project, { step: 1, runId: 'kill-000' });
    }
    await rebuildArtifactIndex(project);
    expect(await readHistoryCut(project, EVERYTHING)).toBeDefined();
    await expectSameCheckout(project, { step: 1, runId: 'kill-000' });
    await expectSameCheckout(project, { at: '2026-05-01T00:00:00.300Z' });
    await expectSameCheckout(project, { step: 0 });
  }, 120_000);
});
