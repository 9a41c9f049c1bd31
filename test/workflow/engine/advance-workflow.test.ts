import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../../src/artifacts/index.js';
import { DEFAULT_PROJECT_CONFIG } from '../../../src/config/index.js';
import { ingestManifestSchema } from '../../../src/ingest/index.js';
import { parseRunId } from '../../../src/project/index.js';
import { advanceWorkflow, startWorkflow, workflowStatus } from '../../../src/workflow/index.js';
import type { WorkflowCompletion, WorkflowStatusResponse } from '../../../src/workflow/index.js';
import { HOSTILE_SHAPES, hostileCandidates, hostileDocument } from '../../helpers/hostile-documents.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { answerWithFile, depsOf, refusal, stateBytes } from './fixtures/engine-fixtures.js';

const exists = (file: string): Promise<boolean> =>
  readFile(file).then(
    () => true,
    () => false,
  );

function asStatus(result: WorkflowStatusResponse | WorkflowCompletion): WorkflowStatusResponse {
  expect(result.status).toBe('running');
  return result as WorkflowStatusResponse;
}

/** Drives feature-dev from start to completion, collecting every status on the way. */
async function driveFeatureDev(projectDir: string, runId: string, ingest: boolean) {
  const deps = depsOf({ ingest });
  const statuses: WorkflowStatusResponse[] = [
    await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'login' }, run_id: runId },
      deps,
    ),
  ];
  const answers = [
    answerWithFile('The scope: a login form.', 'docs/scope.ts', 'export const scope = 1;'),
    '1. form\n2. validation',
    answerWithFile('Form done.', 'src/form.ts', 'export const form = 1;'),
    answerWithFile('Validation done.', 'src/validation.ts', 'export const validation = 1;'),
    'polish 1',
    'polish 2',
    'polish 3',
  ];
  for (const output of answers) {
    statuses.push(asStatus(await advanceWorkflow(projectDir, { run_id: runId, output }, deps)));
  }
  const completion = await advanceWorkflow(projectDir, { run_id: runId, output: 'Looks good.' }, deps);
  return { statuses, completion };
}

describe('advanceWorkflow', () => {
  it('runs feature-dev to the end with loop and ralph counters, documents and a summary (ingest off)', async () => {
    const projectDir = await tempProject();
    const { statuses, completion } = await driveFeatureDev(projectDir, 'fd', false);
    expect(
      statuses.map((s) => [s.step, s.step_number, s.subStepIndex, s.totalSubSteps, s.progress.completed]),
    ).toEqual([
      ['scope', 1, undefined, undefined, 0],
      ['plan', 2, undefined, undefined, 1],
      ['implement', 3, 1, 2, 2],
      ['implement', 3, 2, 2, 2],
      ['polish', 4, 1, 3, 3],
      ['polish', 4, 2, 3, 3],
      ['polish', 4, 3, 3, 3],
      ['review', 5, undefined, undefined, 4],
    ]);
    const implement = statuses[2];
    expect(implement).toMatchObject({
      stepType: 'loop',
      agent: 'coder',
      delegate: true,
      task: { index: 1, total: 2, value: 'form' },
      next_action: { tool: 'workflow_advance', expecting: 'response' },
    });
    expect(implement?.instructions).toMatch(
      /^SPAWN the 'coder' sub-agent to handle this step:\n\nImplement task 1 of 2: form\n/,
    );
    expect(statuses[3]?.instructions).toContain('Implement task 2 of 2: validation');
    expect(statuses[5]).toMatchObject({ stepType: 'ralph', ralphIteration: 2, ralphTotal: 3 });
    expect(statuses[5]?.instructions).toBe(
      `Iteration 2 of 3: improve the result of ${answerWithFile('The scope: a login form.', 'docs/scope.ts', 'export const scope = 1;')}.`,
    );
    expect(statuses[5]).not.toHaveProperty('task');

    expect(completion).toEqual({
      run_id: 'fd',
      status: 'complete',
      summary: {
        workflow: 'feature-dev',
        completed_at: expect.any(String) as string,
        duration_ms: expect.any(Number) as number,
        steps_completed: 5,
        results: {
          scope: answerWithFile('The scope: a login form.', 'docs/scope.ts', 'export const scope = 1;'),
          tasks: '1. form\n2. validation',
        },
      },
      // No contract in feature-dev: the completion is terminal done with nothing to read.
      terminal: {
        state: 'done',
        artifact: null,
        reason: 'every step completed',
        at: expect.any(String) as string,
      },
      // What became of the last output: saved as the step's document, not ingested with the flag off.
      ingest: { document: 'docs/fd/review.md', enabled: false },
    });
    expect((await readdir(path.join(projectDir, 'docs/fd'))).sort()).toEqual([
      'implement-1.md',
      'implement-2.md',
      'plan.md',
      'polish-1.md',
      'polish-2.md',
      'polish-3.md',
      'review.md',
      'scope.md',
    ]);
    expect(await readFile(path.join(projectDir, 'docs/fd/polish-2.md'), 'utf8')).toBe('polish 2');
    // With the flag off nothing is ingested: no workspace file, no manifest; the documents are still recorded.
    expect(await exists(path.join(projectDir, 'workspace/src/form.ts'))).toBe(false);
    expect(await exists(path.join(projectDir, '.agent/runs/fd/manifests'))).toBe(false);
    const { records } = await readArtifactRecords(projectDir, parseRunId('fd'));
    expect(records.filter((record) => record.type === 'message').map((record) => record.path)).toContain(
      'docs/fd/implement-2.md',
    );
    expect(records.some((record) => record.metadata.source === 'ingest')).toBe(false);

    const events = (await readEvents(projectDir, 'fd')).map((event) => String(event.event));
    expect(events.filter((name) => name === 'step.completed')).toHaveLength(8);
    // The ending declares its one terminal state after the completion.
    expect(events.slice(-2)).toEqual(['workflow.completed', 'run.terminal']);
    expect(JSON.parse(await stateBytes(projectDir, 'fd'))).toMatchObject({
      status: 'complete',
      agent_calls: 8,
      terminal: { state: 'done', artifact: null },
    });
    expect(
      JSON.parse(await readFile(path.join(projectDir, '.agent/runs/fd/terminal.json'), 'utf8')),
    ).toMatchObject({ state: 'done', artifact: null, reason: 'every step completed' });
  });

  it('ingests file blocks of a step output with the flag on: source.kind workflow, one manifest per pass, records', async () => {
    const projectDir = await tempProject();
    await driveFeatureDev(projectDir, 'on', true);
    expect(await readFile(path.join(projectDir, 'workspace/src/form.ts'), 'utf8')).toBe(
      'export const form = 1;\n',
    );
    expect(await readFile(path.join(projectDir, 'workspace/src/validation.ts'), 'utf8')).toBe(
      'export const validation = 1;\n',
    );
    const manifest = ingestManifestSchema.parse(
      JSON.parse(await readFile(path.join(projectDir, '.agent/runs/on/manifests/implement-2.json'), 'utf8')),
    );
    expect(manifest).toMatchObject({
      run_id: 'on',
      node_id: 'implement-2',
      source: { kind: 'workflow', mode: 'single', doc_path: 'docs/on/implement-2.md' },
      summary: { total_blocks: 1, written: 1 },
    });
    const { records } = await readArtifactRecords(projectDir, parseRunId('on'));
    expect(
      records
        .filter((record) => record.metadata.source === 'ingest')
        .map((record) => [record.taskId, record.agentId, record.path]),
    ).toEqual([
      ['scope', 'workflow', 'workspace/docs/scope.ts'],
      ['implement-1', 'coder', 'workspace/src/form.ts'],
      ['implement-2', 'coder', 'workspace/src/validation.ts'],
    ]);
    const completed = (await readEvents(projectDir, 'on')).filter(
      (event) => event.event === 'step.completed',
    );
    expect(completed[2]).toMatchObject({
      step: 'implement',
      pass: 1,
      document: 'docs/on/implement-1.md',
      ingest: { total_blocks: 1, written: 1, rejected: 0 },
    });
  });

  it('runs chain_of_thought: {decomposition[0]} and foreach over the saved decomposition', async () => {
    const projectDir = await tempProject();
    const deps = depsOf();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'sort a list' }, run_id: 'cot' },
      deps,
    );
    const analyze = asStatus(
      await advanceWorkflow(projectDir, { output: '- pick a pivot\n- partition' }, deps),
    );
    expect(analyze).toMatchObject({ step: 'analyze_first', next_action: { expecting: 'analysis_1' } });
    expect(analyze.instructions).toContain('Now analyze the first sub-task: pick a pivot');
    const synthesize = asStatus(
      await advanceWorkflow(projectDir, { output: 'Pivot: median of three.' }, deps),
    );
    expect(synthesize.instructions).toContain('- pick a pivot\n- partition');
    expect(synthesize.instructions).toContain('Pivot: median of three.');
    const done = await advanceWorkflow(projectDir, {}, deps);
    expect(done).toMatchObject({
      status: 'complete',
      summary: {
        steps_completed: 3,
        results: { decomposition: '- pick a pivot\n- partition', analysis_1: 'Pivot: median of three.' },
      },
    });
    expect(await exists(path.join(projectDir, 'docs/cot/synthesize.md'))).toBe(false);
  });

  it("keeps a loop step's save_as as the list of its passes and a ralph step's as the last pass", async () => {
    const projectDir = await tempProject({
      'workflows/saves.yaml': [
        'name: saves',
        'version: "1"',
        'inputs: [items]',
        'steps:',
        '  - { id: each, type: loop, over: items, instructions: "{task}", save_as: done }',
        '  - { id: again, type: ralph, n: 2, instructions: "{iteration}", save_as: best }',
        '  - { id: show, instructions: "{done[1]} / {best}" }',
        '',
      ].join('\n'),
    });
    const deps = depsOf();
    await startWorkflow(projectDir, { workflow: 'saves', inputs: { items: ['a', 'b'] }, run_id: 's' }, deps);
    for (const output of ['A', 'B', 'first', 'second']) await advanceWorkflow(projectDir, { output }, deps);
    expect((await workflowStatus(projectDir)).instructions).toBe('B / second');
    expect(await advanceWorkflow(projectDir, {}, deps)).toMatchObject({
      summary: { results: { done: ['A', 'B'], best: 'second' } },
    });
  });

  it('skips a loop over an empty list', async () => {
    const projectDir = await tempProject({
      'workflows/empty.yaml':
        'name: empty\nversion: "1"\ninputs: [items]\nsteps:\n  - { id: a, instructions: go, save_as: list }\n  - { id: each, type: loop, over: list, instructions: "{task}" }\n  - { id: z, instructions: end }\n',
    });
    await startWorkflow(projectDir, { workflow: 'empty', inputs: { items: 'x' }, run_id: 'e' }, depsOf());
    expect(await advanceWorkflow(projectDir, { output: '\n\n' }, depsOf())).toMatchObject({ step: 'z' });
  });

  it.each([
    [
      'output_required',
      'scope',
      {},
      /step scope saves its result as scope; call workflow_advance with output/,
    ],
    ['invalid_request', 'scope', { output: 42 }, /output must be text/],
    ['not_started', 'none', { output: 'x' }, /^Workflow not started\. Call workflow_start first\.$/],
  ] as const)('refuses %s and leaves state.json byte-identical', async (code, _step, request, message) => {
    const projectDir = await tempProject();
    if (code !== 'not_started') {
      await startWorkflow(
        projectDir,
        { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'r' },
        depsOf(),
      );
    }
    const before = code === 'not_started' ? '' : await stateBytes(projectDir, 'r');
    const eventsBefore = code === 'not_started' ? [] : await readEvents(projectDir, 'r');
    expect(
      await refusal(
        advanceWorkflow(projectDir, request as { output?: string }, depsOf({ ingest: true })),
        code,
      ),
    ).toMatch(message);
    if (code === 'not_started') return;
    expect(await stateBytes(projectDir, 'r')).toBe(before);
    expect(await readEvents(projectDir, 'r')).toEqual(eventsBefore);
    expect(await exists(path.join(projectDir, 'docs/r/scope.md'))).toBe(false);
  });

  it('ingests a 1 MiB output of near-miss openers as max_blocks entries and one counting the rest', async () => {
    const shape = HOSTILE_SHAPES[0];
    if (shape === undefined) throw new Error('no near-miss shape');
    const output = hostileDocument(shape, 1024 * 1024);
    const projectDir = await tempProject();
    const deps = depsOf({ ingest: true });
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'h' },
      deps,
    );
    await advanceWorkflow(projectDir, { output }, deps);
    const manifestFile = path.join(projectDir, '.agent/runs/h/manifests/decompose.json');
    const manifest = ingestManifestSchema.parse(JSON.parse(await readFile(manifestFile, 'utf8')));
    const candidates = hostileCandidates(shape, output);
    expect(manifest.artifacts).toHaveLength(501);
    expect(manifest.artifacts.at(-1)?.reason).toMatch(
      new RegExp(`^too_many_blocks: ${String(candidates - 500)} more candidate blocks were not ingested`),
    );
    expect(manifest.summary).toEqual({
      total_blocks: candidates,
      written: 1,
      skipped: candidates - 1,
      rejected: 0,
    });
    const events = await readEvents(projectDir, 'h');
    expect(events.filter((event) => event.event === 'ingest.block')).toHaveLength(501);
    expect(events.find((event) => event.event === 'step.completed')).toMatchObject({
      ingest: { total_blocks: candidates, written: 1 },
    });
  }, 60_000);

  it('refuses an output over max_document_bytes (invalid_request), changing nothing', async () => {
    const projectDir = await tempProject();
    const config = {
      ...DEFAULT_PROJECT_CONFIG,
      ingest: {
        ...DEFAULT_PROJECT_CONFIG.ingest,
        limits: { ...DEFAULT_PROJECT_CONFIG.ingest.limits, maxDocumentBytes: 10 },
      },
    };
    const deps = { ...depsOf({ ingest: true }), config };
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'big' },
      deps,
    );
    const before = await stateBytes(projectDir, 'big');
    expect(
      await refusal(advanceWorkflow(projectDir, { output: 'é'.repeat(6) }, deps), 'invalid_request'),
    ).toBe(
      'output is 12 bytes, over max_document_bytes (10 bytes); nothing was changed: shorten it (or raise ingest.limits.max_document_bytes in artifact-ingest.config.yaml) and call workflow_advance again',
    );
    expect(await stateBytes(projectDir, 'big')).toBe(before);
    expect(await exists(path.join(projectDir, 'docs/big/decompose.md'))).toBe(false);
    await advanceWorkflow(projectDir, { output: 'é'.repeat(5) }, deps);
  });

  it('refuses an output the next step cannot use (step_blocked), changing nothing', async () => {
    const projectDir = await tempProject();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'c' },
      depsOf(),
    );
    const before = await stateBytes(projectDir, 'c');
    expect(await refusal(advanceWorkflow(projectDir, { output: '   ' }, depsOf()), 'step_blocked')).toMatch(
      /step analyze_first cannot start .*decomposition\[0\].*call workflow_advance again/,
    );
    expect(await stateBytes(projectDir, 'c')).toBe(before);
    expect(await exists(path.join(projectDir, 'docs/c/decompose.md'))).toBe(false);
  });

  it('refuses a document the confined writer refuses (output_not_written), changing nothing', async () => {
    const projectDir = await tempProject({ 'docs/r': 'a file where the run folder should be' });
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'r' },
      depsOf(),
    );
    const before = await stateBytes(projectDir, 'r');
    await refusal(advanceWorkflow(projectDir, { output: 'a\nb' }, depsOf()), 'output_not_written');
    expect(await stateBytes(projectDir, 'r')).toBe(before);
  });

  it('refuses to advance a complete workflow (not_running)', async () => {
    const projectDir = await tempProject();
    const deps = depsOf();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'c' },
      deps,
    );
    for (const output of ['a', 'b', 'c']) await advanceWorkflow(projectDir, { run_id: 'c', output }, deps);
    const before = await stateBytes(projectDir, 'c');
    expect(
      await refusal(advanceWorkflow(projectDir, { run_id: 'c', output: 'd' }, deps), 'not_running'),
    ).toMatch(/run c is complete, so workflow_advance cannot change it; call workflow_start/);
    await refusal(advanceWorkflow(projectDir, { output: 'd' }, deps), 'not_started');
    expect(await stateBytes(projectDir, 'c')).toBe(before);
    expect(await workflowStatus(projectDir, { run_id: 'c' })).toMatchObject({
      status: 'complete',
      progress: { completed: 3, total: 3 },
      next_action: { tool: 'workflow_start' },
    });
  });

  it('refuses a bad ARTIFACT_INGEST value before writing anything', async () => {
    const projectDir = await tempProject();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'c' },
      depsOf(),
    );
    const before = await stateBytes(projectDir, 'c');
    await refusal(
      advanceWorkflow(projectDir, { output: 'a' }, { env: { ARTIFACT_INGEST: 'maybe' } }),
      'invalid_config',
    );
    expect(await stateBytes(projectDir, 'c')).toBe(before);
  });

  it('continues from state.json in a fresh module instance (a restarted server: nothing cached)', async () => {
    const projectDir = await tempProject();
    await startWorkflow(
      projectDir,
      { workflow: 'feature-dev', inputs: { feature: 'f' }, run_id: 'k' },
      depsOf(),
    );
    for (const output of ['scope', 'one\ntwo']) await advanceWorkflow(projectDir, { output }, depsOf());
    await advanceWorkflow(projectDir, { output: 'did one' }, depsOf());
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('../../../src/workflow/index.js');
    const status = await fresh.workflowStatus(projectDir);
    expect(status).toMatchObject({
      run_id: 'k',
      step: 'implement',
      task: { index: 2, total: 2, value: 'two' },
    });
    expect(await fresh.advanceWorkflow(projectDir, { output: 'did two' }, depsOf())).toMatchObject({
      step: 'polish',
      ralphIteration: 1,
    });
  });

  it('of two advances from the same status, exactly one wins; the other gets state_conflict', async () => {
    const projectDir = await tempProject();
    await startWorkflow(
      projectDir,
      { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'c' },
      depsOf(),
    );
    const results = await Promise.allSettled([
      advanceWorkflow(projectDir, { output: 'first' }, depsOf()),
      advanceWorkflow(projectDir, { output: 'second' }, depsOf()),
    ]);
    const won = results.filter((result) => result.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((result) => result.status === 'rejected');
    expect((lost?.reason as { code?: string } | undefined)?.code).toMatch(/^state_(conflict|locked)$/);
    const state = JSON.parse(await stateBytes(projectDir, 'c')) as {
      outputs: Record<string, string>;
      revision: number;
    };
    expect(state.revision).toBe(1);
    expect(await readFile(path.join(projectDir, 'docs/c/decompose.md'), 'utf8')).toBe(
      state.outputs.decomposition,
    );
  });
});
