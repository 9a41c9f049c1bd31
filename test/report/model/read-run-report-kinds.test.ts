import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunReport } from '../../../src/report/index.js';
import type { ReportStep, RunReport } from '../../../src/report/index.js';
import { REASKED_RUN_ID, reaskedWorkflowRun } from '../../helpers/reasked-workflow-run.js';
import { runCli } from '../../helpers/run-cli.js';
import { tempProject } from '../../helpers/temp-project.js';
import { treeDigest } from '../../helpers/tree-digest.js';

// The report of each other kind of run, made for real through the CLI: the ralph graph (both endings), a
// workflow with a loop, a contract step and an unregistered file, and a run made by `ingest --run-id`.

const stepOf = (report: RunReport, key: string): ReportStep => {
  const step = report.steps.find((candidate) => candidate.key === key);
  if (step === undefined) throw new Error(`no step ${key} in ${report.steps.map((s) => s.key).join(', ')}`);
  return step;
};

async function onlyRun(project: string): Promise<string> {
  const runs = await readdir(path.join(project, '.agent', 'runs'));
  expect(runs).toHaveLength(1);
  return runs[0] ?? '';
}

async function ralphDemo(scenario: 'done' | 'blocked'): Promise<{ project: string; runId: string }> {
  const project = path.join(await tempProject(), 'ralph');
  const result = await runCli(['demo', 'ralph', '--scenario', scenario, '--dir', project], {
    env: { ARTIFACT_INGEST: '' },
  });
  // A blocked run exits 1.
  expect(result.code, result.stderr).toBe(scenario === 'done' ? 0 : 1);
  return { project, runId: await onlyRun(project) };
}

describe('readRunReport on the ralph graph', () => {
  it('ends done: every contract artifact valid and clean, each node with its verdict', async () => {
    const { project, runId } = await ralphDemo('done');
    const report = await readRunReport(project, runId);
    expect(report.run).toMatchObject({
      kind: 'graph',
      definition: { name: 'ralph' },
      status: 'completed',
      terminal: { state: 'done', artifact: `.agent/artifacts/${runId}/development_result.json` },
    });
    expect(report.run.budgets).toMatchObject({ maxAgentCalls: 20, maxMinutes: 30, maxFixAttempts: 2 });
    expect(report.contracts.map((contract) => [contract.type, contract.valid, contract.findings])).toEqual(
      [
        'commit_message',
        'development_result',
        'fix_result',
        'issues',
        'planning_analysis_decision',
        'product_spec',
        'smoke_test_result',
      ].map((type) => [type, true, []]),
    );
    const result = report.contracts.find((contract) => contract.type === 'development_result');
    expect(result?.path).toBe(`.agent/artifacts/${runId}/development_result.json`);
    expect(JSON.parse(result?.payload ?? 'null')).toEqual(
      JSON.parse(await readFile(path.join(project, result?.path ?? ''), 'utf8')),
    );
    // develop was asked again with a fix request: two executions, the verdict on the last one.
    expect(stepOf(report, 'develop').contract).toBeNull();
    expect(stepOf(report, 'develop#2').contract).toEqual({
      type: 'development_result',
      state: 'done',
      attempts: 2,
      artifact: `.agent/artifacts/${runId}/development_result.json`,
      reason: null,
      errors: [],
    });
    expect(report.verify?.ok).toBe(true);
    expect(report.problems).toEqual([]);
  });

  it('ends blocked: the blocked node with its reason and document, the rest skipped', async () => {
    const { project, runId } = await ralphDemo('blocked');
    const before = await treeDigest(project);
    const report = await readRunReport(project, runId);
    expect(await treeDigest(project)).toBe(before);
    expect(report.run).toMatchObject({
      status: 'failed',
      terminal: { state: 'blocked', artifact: `.agent/artifacts/${runId}/issues.json` },
      counts: { failed: 1, skipped: 3 },
    });
    const review = stepOf(report, 'review');
    expect(review).toMatchObject({ status: 'failed', contract: { type: 'issues', state: 'blocked' } });
    expect(review.contract?.reason).toContain('blocker issue');
    // A failed execution's trace names no document; its message record does.
    expect(review.document?.path).toBe(`docs/${runId}/review.md`);
    expect(review.document?.markdown).toBe(
      await readFile(path.join(project, `docs/${runId}/review.md`), 'utf8'),
    );
    expect(review.files.map((file) => file.path)).toEqual([`.agent/artifacts/${runId}/issues.json`]);
    expect(report.steps.slice(-3).map((step) => [step.key, step.status, step.startedAt])).toEqual([
      ['fix', 'skipped', null],
      ['smoke', 'skipped', null],
      ['commit', 'skipped', null],
    ]);
  });
});

const WORKFLOW = `name: wf
version: "1"
inputs: [feature]
budgets:
  max_agent_calls: 30
steps:
  - id: plan
    type: action
    artefacts: true
    instructions: "Plan {feature}: list the tasks, one per line."
    save_as: tasks
  - id: implement
    type: loop
    over: tasks
    agent: coder
    artefacts: true
    instructions: "Do {task}."
  - id: develop
    contract: development_result
    instructions: "Write the result."
    save_as: result
  - id: review
    instructions: "Review {result}."
  - id: ship
    instructions: "Ship it."
`;

const MALFORMED_RESULT = { outcome: 'done', summary: 'x', changed_files: [], checks_run: [] };
const DEVELOPMENT_RESULT = {
  outcome: 'completed',
  summary: 'Added login.',
  changed_files: [{ path: 'src/login.js', change: 'added' }],
  checks_run: [{ command: 'npm test', result: 'passed' }],
  reviewer_focus: ['the session cookie'],
};
const withArtifact = (payload: unknown): string =>
  `Done.\n\n\`\`\`json artifact=development_result\n${JSON.stringify(payload, null, 2)}\n\`\`\`\n`;

describe('readRunReport on a workflow run', () => {
  it('shows passes, the reconciliation, the contract verdict of the current pass and the steps not run', async () => {
    const project = await tempProject({ 'workflows/wf.yaml': WORKFLOW });
    const wf = async (...args: string[]): Promise<void> => {
      const result = await runCli(['workflow', ...args], { cwd: project });
      expect(result.code, result.stderr).toBe(0);
    };
    await wf('start', 'wf', '--input', 'feature=login', '--run-id', 'wf-1');
    // Written during the plan pass and never registered: the reconciliation's unregistered file.
    await writeFile(path.join(project, 'notes.md'), 'loose notes\n');
    await wf('advance', '--output', 'task one\ntask two');
    await writeFile(path.join(project, 'login.js'), 'export const login = 1;\n');
    await wf('register', 'login.js');
    await wf('advance', '--output', 'did one');
    const midLoop = await readRunReport(project, 'wf-1');
    expect(midLoop.steps.map((step) => [step.key, step.status])).toEqual([
      ['plan', 'completed'],
      ['implement-1', 'completed'],
      ['implement-2', 'running'],
      ['develop', 'pending'],
      ['review', 'pending'],
      ['ship', 'pending'],
    ]);
    await writeFile(path.join(project, 'login.js'), 'export const login = 2;\n');
    await wf('register', 'login.js');
    await wf('advance', '--output', 'did two');
    await wf('advance', '--output', withArtifact(MALFORMED_RESULT));

    const before = await treeDigest(project);
    const report = await readRunReport(project, 'wf-1');
    expect(await treeDigest(project)).toBe(before);
    expect(report.run).toMatchObject({
      kind: 'workflow',
      definition: { name: 'wf', source: '.agent/runs/wf-1/workflow.yaml' },
      mode: null,
      status: 'running',
      terminal: null,
      finishedAt: null,
      durationMs: null,
      inputs: { feature: 'login' },
      concurrency: 1,
      // Four advances so far; the fix attempts are the default of a definition that sets none.
      budgets: { agentCalls: 4, maxAgentCalls: 30, maxMinutes: null, maxFixAttempts: 2, exceeded: null },
    });
    expect(report.steps.map((step) => [step.key, step.kind, step.status])).toEqual([
      ['plan', 'step', 'completed'],
      ['implement-1', 'step', 'completed'],
      ['implement-2', 'step', 'completed'],
      ['develop', 'step', 'failed'],
      ['develop#2', 'step', 'running'],
      ['review', 'step', 'pending'],
      ['ship', 'step', 'pending'],
    ]);
    expect(stepOf(report, 'plan').reconciliation).toEqual({ unregistered: ['notes.md'], phantom: [] });
    expect(stepOf(report, 'plan').document?.markdown).toBe('task one\ntask two');
    expect(stepOf(report, 'implement-1').agent).toBe('coder');
    // Files registered during a loop pass are recorded under the step's id: each goes to its own pass.
    const versions = ['implement-1', 'implement-2'].map((key) => stepOf(report, key).files);
    expect(versions.map((files) => files.map((file) => [file.path, file.change]))).toEqual([
      [['login.js', 'created']],
      [['login.js', 'changed']],
    ]);
    const second = versions[1]?.[0];
    expect(second?.previous).toBe(versions[0]?.[0]?.artifactId);
    expect(second?.diff).toMatchObject({ kind: 'text' });
    expect(second?.diff.kind === 'text' ? second.diff.patch : '').toContain(
      '-export const login = 1;\n+export const login = 2;\n',
    );
    const develop = stepOf(report, 'develop');
    expect(develop.error?.code).toBe('fix_needed');
    // The re-ask is running: no verdict yet, no times but its start.
    expect(stepOf(report, 'develop#2')).toMatchObject({ contract: null, finishedAt: null, document: null });
    expect(develop.contract).toMatchObject({ type: 'development_result', state: 'fix_needed', attempts: 2 });
    expect(develop.contract?.errors.map((error) => error.path)).toContain('outcome');
    expect(report.contracts).toEqual([]);

    await wf('advance', '--output', withArtifact(DEVELOPMENT_RESULT));
    const next = await readRunReport(project, 'wf-1');
    expect(next.steps.map((step) => [step.key, step.status])).toEqual([
      ['plan', 'completed'],
      ['implement-1', 'completed'],
      ['implement-2', 'completed'],
      ['develop', 'failed'],
      ['develop#2', 'completed'],
      ['review', 'running'],
      ['ship', 'pending'],
    ]);
    expect(stepOf(next, 'review').startedAt).not.toBeNull();
    expect(next.contracts).toMatchObject([
      {
        type: 'development_result',
        path: '.agent/artifacts/wf-1/development_result.json',
        valid: true,
        findings: [],
      },
    ]);
    expect(next.run.counts).toMatchObject({ completed: 4, running: 1, pending: 1, failed: 0 });
  });
});

describe('readRunReport on a workflow pass re-asked with a fix request', () => {
  it('draws the re-ask from where its first attempt ended, in the same lane, and says the ingest was on', async () => {
    const project = await reaskedWorkflowRun({ ingest: true });
    const report = await readRunReport(project, REASKED_RUN_ID);
    expect(report.run.ingestEnabled).toBe(true);
    expect(report.steps.map((step) => [step.key, step.status, step.lane])).toEqual([
      ['develop', 'failed', 0],
      ['develop#2', 'completed', 0],
      ['review', 'running', 0],
    ]);
    const [first, reask, review] = report.steps;
    // The fix request went out when the first attempt ended: the re-ask starts there, not at the pass's start.
    expect(reask?.startedAt).toBe(first?.finishedAt);
    expect(reask?.durationMs).toBe(Date.parse(reask?.finishedAt ?? '') - Date.parse(first?.finishedAt ?? ''));
    expect(review?.startedAt).toBe(reask?.finishedAt);
    expect(first?.error?.code).toBe('fix_needed');
    expect(reask?.blocks.map((block) => [block.declaredFile, block.status])).toEqual([
      ['src/parser.ts', 'written'],
      ['', 'skipped'],
    ]);
  });

  it('starts a re-ask still running where the first attempt ended', async () => {
    const project = await reaskedWorkflowRun({ ingest: true, answers: 1 });
    const report = await readRunReport(project, REASKED_RUN_ID);
    expect(report.steps.map((step) => [step.key, step.status, step.lane])).toEqual([
      ['develop', 'failed', 0],
      ['develop#2', 'running', 0],
      ['review', 'pending', 0],
    ]);
    expect(report.steps[1]?.startedAt).toBe(report.steps[0]?.finishedAt);
  });

  it.each<[string, { ingest: boolean; answers?: number }, boolean | null]>([
    ['off: documents were written and none was ingested', { ingest: false }, false],
    ['unknown: no document was written yet', { ingest: true, answers: 0 }, null],
  ])('says the ingest was %s', async (_, options, expected) => {
    const project = await reaskedWorkflowRun(options);
    const report = await readRunReport(project, REASKED_RUN_ID);
    expect(report.run.ingestEnabled).toBe(expected);
  });

  it("reads the ingest off the run's traces when its state is unreadable", async () => {
    const project = await reaskedWorkflowRun({ ingest: true });
    await writeFile(path.join(project, '.agent/runs', REASKED_RUN_ID, 'state.json'), '{"kind": "workflow", ');
    const report = await readRunReport(project, REASKED_RUN_ID);
    expect(report.run).toMatchObject({ status: 'unreadable', ingestEnabled: true });
    expect(report.problems.map((problem) => problem.code)).toContain('unreadable_state');
  });
});

describe('readRunReport on a run made by ingest --run-id', () => {
  it('shows one step per ingested document with its blocks, including one that wrote nothing', async () => {
    const project = await tempProject({
      'docs/a.md': '# A\n\n```js file=a.js\nexport const a = 1;\n```\n\n```sh file=../x.sh\nrm -rf /\n```\n',
      'docs/b.md': '# B\n\n```sh file=/etc/x\nno\n```\n',
    });
    const ingest = await runCli(['ingest', '--run-id', 'ig-1', '--mode', 'team', '--project', project]);
    expect(ingest.code, ingest.stderr).toBe(0);
    const before = await treeDigest(project);
    const report = await readRunReport(project, 'ig-1');
    expect(await treeDigest(project)).toBe(before);
    expect(report.run).toMatchObject({
      kind: 'ingest',
      definition: null,
      mode: 'team',
      status: 'completed',
      terminal: null,
      concurrency: null,
      budgets: null,
      ingestEnabled: true,
      counts: { completed: 2 },
    });
    expect(report.steps.map((step) => [step.key, step.kind, step.status])).toEqual([
      ['a', 'ingest', 'completed'],
      ['b', 'ingest', 'completed'],
    ]);
    expect(stepOf(report, 'a').blocks.map((block) => [block.status, block.code])).toEqual([
      ['written', ''],
      ['rejected', 'traversal'],
    ]);
    expect(stepOf(report, 'a').files.map((file) => [file.path, file.change, file.diff.kind])).toEqual([
      ['workspace/a.js', 'created', 'text'],
    ]);
    expect(stepOf(report, 'b').blocks.map((block) => block.code)).toEqual(['absolute_path']);
    expect(stepOf(report, 'b').files).toEqual([]);
    expect(report.verify?.ok).toBe(true);
    expect(report.problems).toEqual([]);
  });
});
