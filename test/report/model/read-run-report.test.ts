import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnknownRunError } from '../../../src/project/index.js';
import { DEFAULT_REPORT_LIMITS, readRunReport } from '../../../src/report/index.js';
import type { ReportStep, RunReport } from '../../../src/report/index.js';
import { runCli } from '../../helpers/run-cli.js';
import { treeDigest } from '../../helpers/tree-digest.js';

// One demo project, three real runs of the team graph through the CLI: the demo run, then run r1 with
// task_api's reply changing one line of src/server.js and the audit reply missing (audit fails, final is
// skipped), then r1 resumed once the reply is back (audit runs a second time).

const GOAL = 'goal=a tiny URL shortener with tests and a README';
const SERVER_OLD = 'server.listen(process.env.PORT ?? 3000);';
const SERVER_NEW = 'server.listen(Number(process.env.PORT ?? 8080));';
const AUDIT_CODES = ['traversal', 'absolute_path', 'git_dir', 'drive_letter', 'invalid_unicode'];

let root: string;
let project: string;
let demoRun: string;
/** The reports of r1 after it failed and after its resume, read when each was the run's state. */
let failedReport: RunReport;
let resumedReport: RunReport;

const stepOf = (report: RunReport, key: string): ReportStep => {
  const step = report.steps.find((candidate) => candidate.key === key);
  if (step === undefined) throw new Error(`no step ${key} in ${report.steps.map((s) => s.key).join(', ')}`);
  return step;
};

async function copyProject(name: string): Promise<string> {
  const copy = path.join(root, name);
  await cp(project, copy, { recursive: true });
  return copy;
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-report-'));
  project = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', project]);
  expect(demo.code, demo.stderr).toBe(0);
  demoRun = (await readdir(path.join(project, '.agent', 'runs')))[0] ?? '';

  const apiReply = path.join(project, 'replies', 'task_api.md');
  await writeFile(apiReply, (await readFile(apiReply, 'utf8')).replace(SERVER_OLD, SERVER_NEW));
  const auditReply = path.join(project, 'replies', 'audit.md');
  const auditText = await readFile(auditReply, 'utf8');
  await rm(auditReply);
  const failed = await runCli(['run', 'team', '--project', project, '--input', GOAL, '--run-id', 'r1']);
  expect(failed.code, failed.stderr).toBe(1);
  failedReport = await readRunReport(project, 'r1');

  await writeFile(auditReply, auditText);
  const resumed = await runCli(['run', '--resume', 'r1', '--project', project]);
  expect(resumed.code, resumed.stderr).toBe(0);
  resumedReport = await readRunReport(project, 'r1');
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('readRunReport on the team demo run', () => {
  it('fills the header from the state, terminal.json and the run.started event', async () => {
    const report = await readRunReport(project, demoRun);
    expect(report.reportVersion).toBe(1);
    expect(report.run).toMatchObject({
      runId: demoRun,
      kind: 'graph',
      definition: { name: 'team', source: 'builtin:team' },
      mode: 'team',
      status: 'completed',
      terminal: { state: 'done', artifact: null, reason: 'every node completed' },
      inputs: { goal: 'a tiny URL shortener with tests and a README' },
      ingestEnabled: true,
      concurrency: 2,
      counts: { completed: 7, failed: 0, skipped: 0, pending: 0, running: 0 },
    });
    expect(report.run.definition?.hash).toMatch(/^[0-9a-f]{64}$/);
    const state = JSON.parse(
      await readFile(path.join(project, '.agent', 'runs', demoRun, 'state.json'), 'utf8'),
    ) as { created_at: string; updated_at: string; budgets: { agent_calls: number } };
    expect(report.run.startedAt).toBe(state.created_at);
    expect(report.run.finishedAt).toBe(state.updated_at);
    expect(report.run.durationMs).toBe(Date.parse(state.updated_at) - Date.parse(state.created_at));
    expect(report.run.budgets).toMatchObject({ agentCalls: state.budgets.agent_calls, exceeded: null });
    expect(report.problems).toEqual([]);
    expect(report.verify).toMatchObject({ ok: true, errors: 0 });
    expect(report.verify?.objects.checked).toBeGreaterThan(0);
    expect(report.contracts).toEqual([]);
  });

  it('lists the seven nodes in start order, overlapping ones in different lanes', async () => {
    const { steps } = await readRunReport(project, demoRun);
    expect(steps.map((step) => step.key).sort()).toEqual(
      ['audit', 'final', 'plan', 'pm', 'task_api', 'task_readme', 'todo'].sort(),
    );
    expect(steps[0]?.key).toBe('plan');
    expect(steps.at(-1)?.key).toBe('final');
    const starts = steps.map((step) => Date.parse(step.startedAt ?? ''));
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    for (const a of steps)
      for (const b of steps) {
        const overlap =
          a !== b &&
          Date.parse(a.startedAt!) < Date.parse(b.finishedAt!) &&
          Date.parse(b.startedAt!) < Date.parse(a.finishedAt!);
        if (overlap) expect(a.lane, `${a.key} overlaps ${b.key}`).not.toBe(b.lane);
      }
    // pm and todo start together (concurrency 2): the timeline has two lanes.
    expect(new Set(steps.map((step) => step.lane))).toEqual(new Set([0, 1]));
    expect(stepOf({ steps } as RunReport, 'todo').agent).toBeNull();
    expect(stepOf({ steps } as RunReport, 'plan')).toMatchObject({
      kind: 'node',
      status: 'completed',
      agent: 'planner',
      attempt: 1,
      error: null,
      contract: null,
      reconciliation: null,
    });
    expect(stepOf({ steps } as RunReport, 'plan').promptSha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("shows the audit node's five rejected blocks with their codes and reasons, as its manifest has them", async () => {
    const audit = stepOf(await readRunReport(project, demoRun), 'audit');
    const rejected = audit.blocks.filter((block) => block.status === 'rejected');
    expect(rejected.map((block) => block.code)).toEqual(AUDIT_CODES);
    for (const block of rejected) {
      expect(block.reason.startsWith(`${block.code}: `)).toBe(true);
      expect(block.workspacePath).toBe('');
    }
    expect(rejected[0]?.declaredFile).toBe('../../.bashrc');
    const manifest = JSON.parse(
      await readFile(path.join(project, '.agent', 'runs', demoRun, 'manifests', 'audit.json'), 'utf8'),
    ) as { artifacts: { index: number; status: string }[] };
    expect(audit.blocks.map((block) => [block.index, block.status])).toEqual(
      manifest.artifacts.map((entry) => [entry.index, entry.status]),
    );
    const written = audit.blocks.find((block) => block.status === 'written');
    expect(written).toMatchObject({ code: '', reason: '', workspacePath: 'workspace/docs/SECURITY.md' });
  });

  it("carries each node's document as written, and its files with a diff from nothing", async () => {
    const report = await readRunReport(project, demoRun);
    const audit = stepOf(report, 'audit');
    const text = await readFile(path.join(project, 'docs', 'audits', 'security.md'), 'utf8');
    expect(audit.document).toMatchObject({
      path: 'docs/audits/security.md',
      bytes: Buffer.byteLength(text),
      markdown: text,
      truncated: false,
      unavailable: null,
    });
    // The document is the step's input, not one of its files.
    expect(audit.files.map((file) => file.path)).toEqual(['workspace/docs/SECURITY.md']);
    const server = stepOf(report, 'task_api').files.find((file) => file.path === 'workspace/src/server.js');
    expect(server).toMatchObject({ change: 'created', previous: null, linesRemoved: 0 });
    expect(server?.diff.kind).toBe('text');
    if (server?.diff.kind !== 'text') return;
    expect(server.diff.patch).toMatch(/^--- \/dev\/null\n\+\+\+ b\/workspace\/src\/server\.js/);
    expect(server.diff.patch).toContain(`+${SERVER_OLD}`);
    expect(server.diff.truncated).toBe(false);
    expect(report.limits).toMatchObject({
      ...DEFAULT_REPORT_LIMITS,
      diffsOmitted: 0,
      diffsTruncated: 0,
      documentsOmitted: 0,
      documentsTruncated: 0,
      replayCommand: `artifact-ingest replay ${demoRun} --backward`,
    });
  });

  it('cuts diffs and documents at the caps given, and leaves the rest out with the replay command', async () => {
    const report = await readRunReport(project, demoRun, {
      maxDiffLines: 3,
      maxDiffBytesTotal: 300,
      maxDocumentBytes: 100,
      maxDocumentBytesTotal: 250,
    });
    const files = report.steps.flatMap((step) => step.files);
    const texts = files.flatMap((file) => (file.diff.kind === 'text' ? [file.diff] : []));
    expect(texts.length).toBeGreaterThan(0);
    for (const diff of texts) expect(diff.patch.split('\n').length - 1).toBeLessThanOrEqual(3);
    expect(texts.filter((diff) => diff.truncated)).toHaveLength(report.limits.diffsTruncated);
    const omitted = files.filter((file) => file.diff.kind === 'omitted');
    expect(omitted.length).toBe(report.limits.diffsOmitted);
    expect(omitted.length).toBeGreaterThan(0);
    const last = omitted.at(-1);
    expect(last?.diff).toMatchObject({
      command: `artifact-ingest replay ${demoRun} --backward --path ${last?.path ?? ''}`,
    });
    const documents = report.steps.flatMap((step) => (step.document === null ? [] : [step.document]));
    for (const document of documents)
      if (document.markdown !== null) expect(Buffer.byteLength(document.markdown)).toBeLessThanOrEqual(100);
    expect(documents.filter((document) => document.truncated)).toHaveLength(report.limits.documentsTruncated);
    expect(documents.filter((document) => document.markdown === null)).toHaveLength(
      report.limits.documentsOmitted,
    );
    expect(report.limits.documentsOmitted).toBeGreaterThan(0);
    // Left out for size is not a problem of the run.
    expect(report.problems).toEqual([]);
  });

  it('lists at most maxFiles files and maxBlocks blocks over the report, counting the rest per step', async () => {
    const full = await readRunReport(project, demoRun);
    const report = await readRunReport(project, demoRun, { maxFiles: 3, maxBlocks: 4 });
    const count = (r: RunReport, list: 'files' | 'blocks'): number =>
      r.steps.reduce((sum, step) => sum + step[list].length, 0);
    expect(count(report, 'files')).toBe(3);
    expect(count(report, 'blocks')).toBe(4);
    expect(report.limits).toMatchObject({
      maxFiles: 3,
      maxBlocks: 4,
      filesOmitted: count(full, 'files') - 3,
      blocksOmitted: count(full, 'blocks') - 4,
    });
    for (const step of report.steps) {
      const whole = stepOf(full, step.key);
      expect(step.files.length + (step.filesOmitted ?? 0)).toBe(whole.files.length);
      expect(step.blocks.length + (step.blocksOmitted ?? 0)).toBe(whole.blocks.length);
      // The earliest steps are kept whole: what is listed is each step's first rows.
      expect(step.blocks).toEqual(whole.blocks.slice(0, step.blocks.length));
    }
    expect(stepOf(report, 'plan').blocks).toHaveLength(2);
    expect(stepOf(full, 'audit').blocksOmitted).toBe(0);
  });

  it('refuses a cap that is not a non-negative integer', async () => {
    await expect(readRunReport(project, demoRun, { maxDiffLines: -1 })).rejects.toThrow(RangeError);
  });

  it('throws UnknownRunError for a run that does not exist, as replay does', async () => {
    await expect(readRunReport(project, 'no-such-run')).rejects.toBeInstanceOf(UnknownRunError);
    await expect(readRunReport(project, '../demo')).rejects.toBeInstanceOf(UnknownRunError);
  });

  it('changes nothing anywhere in the project, .agent/ included', async () => {
    const before = await treeDigest(project);
    await readRunReport(project, demoRun);
    await readRunReport(project, 'r1');
    expect(await treeDigest(project)).toBe(before);
  });
});

describe('readRunReport on a failed run and its resume', () => {
  it('shows the failed node with its error, and its dependent skipped with no times', () => {
    expect(failedReport.run).toMatchObject({
      status: 'failed',
      counts: { failed: 1, skipped: 1, completed: 5 },
    });
    const audit = stepOf(failedReport, 'audit');
    expect(audit.status).toBe('failed');
    expect(audit.error?.code).toMatch(/\w/);
    expect(audit.document).toBeNull();
    const final = stepOf(failedReport, 'final');
    expect(final).toMatchObject({
      status: 'skipped',
      startedAt: null,
      finishedAt: null,
      durationMs: null,
      lane: 0,
      document: null,
      blocks: [],
      files: [],
    });
    // Not-run nodes come last.
    expect(failedReport.steps.at(-1)?.key).toBe('final');
  });

  it('keeps both executions of the retried node, the second keyed audit#2', () => {
    expect(resumedReport.run).toMatchObject({ status: 'completed', counts: { completed: 7, failed: 0 } });
    const keys = resumedReport.steps.map((step) => step.key);
    expect(keys.filter((key) => key.startsWith('audit'))).toEqual(['audit', 'audit#2']);
    expect(stepOf(resumedReport, 'audit')).toMatchObject({ id: 'audit', status: 'failed', attempt: 1 });
    expect(stepOf(resumedReport, 'audit#2')).toMatchObject({ id: 'audit', status: 'completed', attempt: 2 });
    // The manifest is rewritten by each execution: its blocks are the last one's.
    expect(stepOf(resumedReport, 'audit').blocks).toEqual([]);
    expect(stepOf(resumedReport, 'audit#2').blocks.map((block) => block.code)).toContain('traversal');
    expect(stepOf(resumedReport, 'final').status).toBe('completed');
  });

  it('diffs a changed file against its previous version from the earlier run', async () => {
    const first = await readRunReport(project, demoRun);
    const before = stepOf(first, 'task_api').files.find((file) => file.path === 'workspace/src/server.js');
    const after = stepOf(resumedReport, 'task_api').files.find(
      (file) => file.path === 'workspace/src/server.js',
    );
    expect(after).toMatchObject({
      change: 'changed',
      previous: before?.artifactId,
      linesAdded: 1,
      linesRemoved: 1,
    });
    expect(after?.diff.kind).toBe('text');
    if (after?.diff.kind !== 'text') return;
    expect(after.diff.patch).toContain(`-${SERVER_OLD}\n+${SERVER_NEW}\n`);
    expect(after.diff.patch).toContain('--- a/workspace/src/server.js');
  });
});

describe('readRunReport on damaged records', () => {
  it('reports a corrupt manifest as a problem and shows the rest', async () => {
    const copy = await copyProject('bad-manifest');
    await writeFile(path.join(copy, '.agent', 'runs', demoRun, 'manifests', 'plan.json'), '{ not json');
    const report = await readRunReport(copy, demoRun);
    expect(stepOf(report, 'plan').blocks).toEqual([]);
    expect(stepOf(report, 'audit').blocks).toHaveLength(7);
    expect(report.problems).toEqual([
      {
        code: 'unreadable_manifest',
        message: expect.stringContaining(
          `.agent/runs/${demoRun}/manifests/plan.json is not valid JSON`,
        ) as string,
      },
    ]);
  });

  it('reports a missing document object, and verify fails on it', async () => {
    const copy = await copyProject('missing-object');
    const report = await readRunReport(copy, demoRun);
    const sha = stepOf(report, 'audit').document?.sha256 ?? '';
    await rm(path.join(copy, '.agent', 'objects', 'sha256', sha.slice(0, 2), sha.slice(2)));
    const damaged = await readRunReport(copy, demoRun);
    const audit = stepOf(damaged, 'audit');
    expect(audit.document).toMatchObject({ markdown: null, truncated: false });
    expect(audit.document?.unavailable).toMatch(/is not in \.agent\/objects; restore it/);
    expect(damaged.problems.map((problem) => problem.code)).toContain('unavailable_document');
    expect(damaged.verify?.ok).toBe(false);
    expect(damaged.verify?.problems.map((problem) => problem.code)).toContain('missing_object');
    expect(stepOf(damaged, 'plan').document?.markdown).not.toBeNull();
  });

  it('says verify is not ok once an object is corrupted', async () => {
    const copy = await copyProject('corrupt-object');
    const report = await readRunReport(copy, demoRun);
    const hash = stepOf(report, 'task_api').files[0]?.contentHash.slice('sha256:'.length) ?? '';
    await writeFile(
      path.join(copy, '.agent', 'objects', 'sha256', hash.slice(0, 2), hash.slice(2)),
      'tampered',
    );
    const damaged = await readRunReport(copy, demoRun);
    expect(damaged.verify).toMatchObject({ ok: false });
    expect(damaged.verify?.errors).toBeGreaterThan(0);
    expect(damaged.verify?.problems.map((problem) => problem.code)).toContain('corrupt_object');
    const file = stepOf(damaged, 'task_api').files[0];
    expect(file?.diff).toMatchObject({ kind: 'unavailable', reason: 'corrupt_object' });
  });

  it('with checks: false, neither verifies nor audits: a corrupt object is no problem of the report', async () => {
    const copy = await copyProject('no-checks');
    const report = await readRunReport(copy, demoRun);
    const hash = stepOf(report, 'task_api').files[0]?.contentHash.slice('sha256:'.length) ?? '';
    await writeFile(
      path.join(copy, '.agent', 'objects', 'sha256', hash.slice(0, 2), hash.slice(2)),
      'tampered',
    );
    const unchecked = await readRunReport(copy, demoRun, { checks: false });
    expect(unchecked.verify).toBeNull();
    expect(unchecked.contracts).toEqual([]);
    expect(unchecked.problems.map((problem) => problem.code)).not.toContain('corrupt_object');
    // The steps are the same model; only the checks are left out.
    expect(unchecked.steps.map((step) => step.key)).toEqual(report.steps.map((step) => step.key));
    const checked = await readRunReport(copy, demoRun);
    expect(checked.verify?.problems.map((problem) => problem.code)).toContain('corrupt_object');
  });

  it('shows a node whose trace is unreadable from the state alone, and says so', async () => {
    const copy = await copyProject('missing-trace');
    const records = (await readFile(path.join(copy, '.agent', 'runs', demoRun, 'artifacts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line.includes('"type":"trace"') && line.includes('"taskId":"plan"'));
    expect(records).toHaveLength(1);
    const hash = (JSON.parse(records[0] ?? '{}') as { contentHash: string }).contentHash.slice(
      'sha256:'.length,
    );
    await rm(path.join(copy, '.agent', 'objects', 'sha256', hash.slice(0, 2), hash.slice(2)));
    const report = await readRunReport(copy, demoRun);
    expect(report.steps.map((step) => step.key).sort()).toEqual(
      ['audit', 'final', 'plan', 'pm', 'task_api', 'task_readme', 'todo'].sort(),
    );
    const plan = stepOf(report, 'plan');
    // The timeline leaves the execution out with its versions; the state still says what the node did.
    expect(plan).toMatchObject({ status: 'completed', agent: 'planner', document: null, files: [] });
    expect(plan.startedAt).not.toBeNull();
    expect(report.problems.map((problem) => problem.code)).toEqual(['unreadable_trace']);
    expect(report.problems[0]?.message).toContain('restore');
  });

  it('puts the versions of an execution interrupted before its trace on the node the state shows', async () => {
    const copy = await copyProject('interrupted');
    const records = path.join(copy, '.agent', 'runs', demoRun, 'artifacts.jsonl');
    const lines = (await readFile(records, 'utf8')).split('\n').filter((line) => line !== '');
    // As if the runner died after final's document was recorded and before its trace.
    expect(lines.at(-1)).toContain('"taskId":"final","agentId":"writer","type":"trace"');
    await writeFile(records, `${lines.slice(0, -1).join('\n')}\n`);
    const report = await readRunReport(copy, demoRun);
    const final = stepOf(report, 'final');
    expect(final.document?.path).toBe('docs/final.md');
    expect(final.document?.markdown).toBe(await readFile(path.join(copy, 'docs', 'final.md'), 'utf8'));
    expect(final.files).toEqual([]);
    expect(report.problems).toEqual([]);
  });

  it('still shows the steps from the records when state.json is corrupt', async () => {
    const copy = await copyProject('bad-state');
    await writeFile(path.join(copy, '.agent', 'runs', 'r1', 'state.json'), '{"version": 1,');
    const report = await readRunReport(copy, 'r1');
    expect(report.run).toMatchObject({
      kind: 'graph',
      status: 'unreadable',
      definition: { name: 'team', source: null },
    });
    expect(report.steps.map((step) => step.key)).toEqual(resumedReport.steps.map((step) => step.key));
    expect(report.problems[0]).toMatchObject({ code: 'unreadable_state' });
    expect(report.problems[0]?.message).toContain('.agent/runs/r1/state.json');
  });
});
