import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_SUBCOMMAND_HELP } from '../../src/cli/workflow/workflow-help.js';
import { listWorkflows, workflowStatus } from '../../src/workflow/index.js';
import type { WorkflowCompletion, WorkflowStatusResponse } from '../../src/workflow/index.js';
import {
  OUTSIDE_MARKERS,
  outsideReferences,
  outsideRefusal,
  outsideWorkflowFixture,
} from '../helpers/outside-workflow-fixture.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, readEvents, tempProject } from '../helpers/temp-project.js';

const INGEST_ON = { 'artifact-ingest.config.yaml': 'ingest:\n  enabled: true\n' };

/** Runs `artifact-ingest workflow ...` in `projectDir` with --json and parses its one document. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names the document's shape
async function workflowJson<T>(projectDir: string, args: readonly string[], stdin?: string) {
  const result = await runCli(['workflow', ...args, '--json'], {
    cwd: projectDir,
    env: { ARTIFACT_INGEST: '' },
    ...(stdin === undefined ? {} : { stdin }),
  });
  return { ...result, json: JSON.parse(result.stdout) as T };
}

describe('artifact-ingest workflow: a full feature-dev run', () => {
  it('starts, advances every pass (loop and ralph) and completes, printing the engine statuses', async () => {
    const projectDir = await tempProject(INGEST_ON);
    const started = await workflowJson<WorkflowStatusResponse>(projectDir, [
      'start',
      'feature-dev',
      '--input',
      'feature=login',
      '--run-id',
      'fd-1',
    ]);
    expect(started.code).toBe(0);
    expect(started.json).toMatchObject({
      run_id: 'fd-1',
      workflow: 'feature-dev',
      step: 'scope',
      status: 'running',
    });
    // The same JSON as the engine's own status (what the MCP tool returns), which adds declared versus
    // observed of the pass so far.
    expect(await workflowStatus(projectDir, { run_id: 'fd-1' })).toEqual({
      ...(started.json as object),
      reconciliation: { unregistered: [], phantom: [] },
    });

    const scope = `The scope.\n\n${fileBlock('ts', 'src/scope.ts', 'export const scope = 1;')}`;
    await writeFile(path.join(projectDir, 'scope-answer.md'), scope);
    const outputs: (readonly string[])[] = [
      ['--output-file', 'scope-answer.md'],
      ['--output', '1. form\n2. validation'],
      ['--output', 'form done'],
      ['--output', 'validation done'],
      ['--output', 'polish 1'],
      ['--output', 'polish 2'],
      ['--output', 'polish 3'],
    ];
    const steps: unknown[] = [];
    for (const output of outputs) {
      // RUN_ID is left out: exactly one workflow runs in the project.
      const advanced = await workflowJson<WorkflowStatusResponse>(projectDir, ['advance', ...output]);
      expect(advanced.code, advanced.stderr).toBe(0);
      steps.push([advanced.json.step, advanced.json.subStepIndex, advanced.json.progress.completed]);
    }
    expect(steps).toEqual([
      ['plan', undefined, 1],
      ['implement', 1, 2],
      ['implement', 2, 2],
      ['polish', 1, 3],
      ['polish', 2, 3],
      ['polish', 3, 3],
      ['review', undefined, 4],
    ]);

    const done = await workflowJson<WorkflowCompletion>(projectDir, ['advance', 'fd-1', '--output', 'ok']);
    expect(done.code).toBe(0);
    expect(done.json).toMatchObject({
      run_id: 'fd-1',
      status: 'complete',
      summary: {
        workflow: 'feature-dev',
        steps_completed: 5,
        results: { scope, tasks: '1. form\n2. validation' },
      },
    });
    // The advance's output was written as the step's document and, with ingest on, its file block extracted.
    expect(await readFile(path.join(projectDir, 'docs', 'fd-1', 'scope.md'), 'utf8')).toBe(scope);
    expect(await readFile(path.join(projectDir, 'workspace', 'src', 'scope.ts'), 'utf8')).toBe(
      'export const scope = 1;\n',
    );
    const events = (await readEvents(projectDir, 'fd-1')).map((event) => event.event);
    expect(events).toContain('workflow.completed');

    const after = await workflowJson<WorkflowStatusResponse>(projectDir, ['status', 'fd-1']);
    expect(after.json).toMatchObject({ status: 'complete', progress: { completed: 5, total: 5 } });
  });

  it('prints a person the step, type, progress, instructions, next action and artefacts', async () => {
    const projectDir = await tempProject();
    const start = await runCli(
      ['workflow', 'start', 'feature-dev', '--input', 'feature=login', '--run-id', 'fd-h'],
      { cwd: projectDir },
    );
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toContain('workflow feature-dev  run fd-h  running\n');
    expect(start.stdout).toContain('step 1/5: scope (action)  progress: 0/5 steps done\n');
    expect(start.stdout).toContain(
      'instructions:\n  Scope out login and save the scope to a markdown file.\n',
    );
    expect(start.stdout).toContain('you MUST call the `register_artefacts` tool');
    expect(start.stdout).toContain(
      'next: workflow_advance with scope: artifact-ingest workflow advance fd-h --output-file FILE (or --output TEXT)\n',
    );
    expect(start.stdout).toContain('artefacts: none registered\n');

    for (const output of ['the scope', 'one task']) {
      expect((await runCli(['workflow', 'advance', '--output', output], { cwd: projectDir })).code).toBe(0);
    }
    const status = await runCli(['workflow', 'status'], { cwd: projectDir });
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('step 3/5: implement (loop)  progress: 2/5 steps done\n');
    expect(status.stdout).toContain('task 1/1: one task\n');
    expect(status.stdout).toContain('agent: coder (delegate to this sub-agent)\n');

    const aborted = await runCli(['workflow', 'abort', '--reason', 'changed my mind'], { cwd: projectDir });
    expect(aborted.code).toBe(0);
    expect(aborted.stdout).toContain('run fd-h  aborted\n');
    expect(aborted.stdout).toContain('was aborted: changed my mind');
  });

  it('says what became of the output: each file block written where, or skipped or rejected and why (issue 24)', async () => {
    const projectDir = await tempProject(INGEST_ON);
    const output = `Done.\n\n${fileBlock('ts', 'src/a.ts', 'export {};')}\n\`\`\`ts file=src/cut.ts\nexport const`;
    await writeFile(path.join(projectDir, 'answer.md'), output);
    await workflowJson(projectDir, ['start', 'chain_of_thought', '--input', 'problem=p', '--run-id', 'c1']);
    const plain = await runCli(['workflow', 'advance', '--output-file', 'answer.md'], { cwd: projectDir });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout).toMatch(
      /^ingest of docs\/c1\/decompose\.md: 2 blocks: 1 written, 1 skipped, 0 rejected \(manifest \.agent\/runs\/c1\/manifests\/decompose\.json\)\n {2}written {3}src\/a\.ts -> workspace\/src\/a\.ts\n {2}skipped {3}src\/cut\.ts {2}unterminated: .*\n\nworkflow chain_of_thought {2}run c1 {2}running\n/,
    );

    // The same output again, in another run: the file already holds the bytes, skipped with reason unchanged.
    await workflowJson(projectDir, ['start', 'chain_of_thought', '--input', 'problem=p', '--run-id', 'c2']);
    const again = await workflowJson<{ ingest: unknown }>(projectDir, [
      'advance',
      'c2',
      '--output-file',
      'answer.md',
    ]);
    expect(again.json.ingest).toEqual({
      document: 'docs/c2/decompose.md',
      enabled: true,
      total_blocks: 2,
      written: 0,
      skipped: 2,
      rejected: 0,
      manifest_path: '.agent/runs/c2/manifests/decompose.json',
      problems: [],
      blocks: [
        {
          index: 0,
          declared_file: 'src/a.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/a.ts',
          reason: 'unchanged: the file already holds exactly these bytes',
        },
        {
          index: 1,
          declared_file: 'src/cut.ts',
          status: 'skipped',
          workspace_path: 'workspace/src/cut.ts',
          reason: expect.stringMatching(/^unterminated: /) as string,
        },
      ],
      left_out: 0,
    });
  });

  it('reads the output from standard input with --output-file -', async () => {
    const projectDir = await tempProject();
    await workflowJson(projectDir, ['start', 'chain_of_thought', '--input', 'problem=p', '--run-id', 'c']);
    const advanced = await workflowJson<WorkflowStatusResponse>(
      projectDir,
      ['advance', '--output-file', '-'],
      'first sub-task\nsecond\n',
    );
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.json.instructions).toContain('Now analyze the first sub-task: first sub-task');
    expect(await readFile(path.join(projectDir, 'docs', 'c', 'decompose.md'), 'utf8')).toBe(
      'first sub-task\nsecond\n',
    );
  });

  it('lists the built-in workflows as the MCP tool does', async () => {
    const projectDir = await tempProject();
    const listed = await workflowJson<unknown>(projectDir, ['list']);
    expect(listed.code).toBe(0);
    expect(listed.json).toEqual(await listWorkflows(projectDir));
    expect(listed.stderr).toBe('');
    const table = await runCli(['workflow', 'list'], { cwd: projectDir });
    expect(table.stdout).toMatch(/feature-dev\s+1\s+5\s+feature\s+Scope, plan/);
  });
});

describe('artifact-ingest workflow: errors and exit codes', () => {
  /** A project with one running chain_of_thought run `c` (its first step saves its output). */
  async function runningProject(): Promise<string> {
    const projectDir = await tempProject();
    const started = await workflowJson(projectDir, [
      'start',
      'chain_of_thought',
      '--input',
      'problem=p',
      '--run-id',
      'c',
    ]);
    expect(started.code).toBe(0);
    return projectDir;
  }

  it.each<[string, readonly string[], number, string, string]>([
    [
      'no workflow started',
      ['status'],
      2,
      'not_started',
      "Workflow not started. Call 'artifact-ingest workflow start' first.",
    ],
    ['an unknown workflow', ['start', 'nope'], 2, 'unknown_workflow', 'nope'],
    [
      'a missing input',
      ['start', 'feature-dev'],
      2,
      'missing_input',
      "missing input feature: workflow feature-dev needs feature; run 'artifact-ingest workflow start feature-dev --input feature=...'",
    ],
    [
      'an unknown input',
      ['start', 'feature-dev', '--input', 'feature=x', '--input', 'featur=y'],
      2,
      'unknown_input',
      'did you mean feature?',
    ],
    ['a bad run id', ['status', '../x'], 2, 'invalid_id', 'RUN_ID'],
    ['an unknown run', ['status', 'ghost'], 2, 'unknown_run', 'no run "ghost"'],
    ['a malformed --input', ['start', 'feature-dev', '--input', 'feature'], 2, 'usage', 'must be KEY=VALUE'],
    [
      'an unknown subcommand',
      ['stauts'],
      2,
      'usage',
      "unknown workflow subcommand 'stauts'; did you mean status?",
    ],
    ['an unknown option', ['advance', '--ouput', 'x'], 2, 'usage', 'did you mean --output?'],
    ['two RUN_IDs', ['status', 'a', 'b'], 2, 'usage', 'workflow status takes one RUN_ID'],
  ])('%s: exit %i, code %s', async (_, args, exit, code, message) => {
    const projectDir = await tempProject();
    const result = await workflowJson<{ error: { code: string; message: string } }>(projectDir, args);
    expect(result.code).toBe(exit);
    expect(result.json.error.code).toBe(code);
    expect(result.json.error.message).toContain(message);
    expect(result.stderr).toContain(message);
  });

  it('refuses an advance without the output the step saves (exit 2), and changes nothing', async () => {
    const projectDir = await runningProject();
    const before = await readFile(path.join(projectDir, '.agent', 'runs', 'c', 'state.json'), 'utf8');
    const result = await runCli(['workflow', 'advance'], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('output_required: step decompose saves its result as decomposition');
    expect(await readFile(path.join(projectDir, '.agent', 'runs', 'c', 'state.json'), 'utf8')).toBe(before);
  });

  it('refuses to advance or abort a run that is no longer running (exit 2)', async () => {
    const projectDir = await runningProject();
    expect((await runCli(['workflow', 'abort', 'c'], { cwd: projectDir })).code).toBe(0);
    const again = await runCli(['workflow', 'abort', 'c'], { cwd: projectDir });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('not_running: workflow run c is aborted');
    // A shell user is told the command, not the MCP tool.
    expect(again.stderr).toContain("call 'artifact-ingest workflow start' to start another");
    expect(again.stderr).not.toMatch(/workflow_\w+|register_artefacts|submit_artifact/);
  });

  it('names every running run when RUN_ID is left out and several run (exit 2)', async () => {
    const projectDir = await runningProject();
    await workflowJson(projectDir, ['start', 'chain_of_thought', '--input', 'problem=q', '--run-id', 'd']);
    const result = await runCli(['workflow', 'status'], { cwd: projectDir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/several_running: 2 workflows are running: .*c \(chain_of_thought.*d \(/);
  });

  it('refuses --output with --output-file, a missing file, invalid UTF-8, a FIFO and stdin it does not have', async () => {
    const projectDir = await runningProject();
    await writeFile(path.join(projectDir, 'bad.md'), Buffer.from([0x66, 0xff, 0xfe]));
    // A FIFO with no writer: refused at once, never waited on.
    expect(spawnSync('mkfifo', [path.join(projectDir, 'pipe.md')]).status).toBe(0);
    const cases: [readonly string[], string][] = [
      [['--output', 'x', '--output-file', 'f'], '--output and --output-file both give the output'],
      [['--output-file', 'missing.md'], 'missing.md cannot be read'],
      [['--output-file', 'bad.md'], 'is not valid UTF-8'],
      [['--output-file', '.'], 'is not a regular file'],
      [['--output-file', 'pipe.md'], 'pipe.md is not a regular file'],
      [['--output-file', '-'], 'reads standard input, and there is none here'],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(['workflow', 'advance', ...args], { cwd: projectDir });
      expect(result.code, message).toBe(2);
      expect(result.stderr).toContain(message);
      expect(result.stderr).toContain("Run 'artifact-ingest workflow advance --help' for usage.");
    }
  });

  it('refuses an output larger than ingest.limits.max_document_bytes (exit 2)', async () => {
    const projectDir = await tempProject({
      'artifact-ingest.config.yaml': 'ingest:\n  limits:\n    max_document_bytes: 1024\n',
    });
    await workflowJson(projectDir, ['start', 'chain_of_thought', '--input', 'problem=p', '--run-id', 'c']);
    const result = await runCli(['workflow', 'advance', '--output-file', '-'], {
      cwd: projectDir,
      stdin: 'x'.repeat(2000),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('larger than 1024 bytes');
  });
});

describe('artifact-ingest workflow --help', () => {
  it.each(Object.keys(WORKFLOW_SUBCOMMAND_HELP))(
    'workflow %s --help prints its usage, exit 0',
    async (name) => {
      const own = await runCli(['workflow', name, '--help']);
      expect(own.code).toBe(0);
      expect(own.stdout).toMatch(new RegExp(`^Usage: artifact-ingest workflow ${name}\\b`));
      expect((await runCli(['workflow', 'help', name])).stdout).toBe(own.stdout);
    },
  );

  it('prints the workflow help for --help and help workflow; no subcommand is a usage error', async () => {
    const own = await runCli(['workflow', '--help']);
    expect(own).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(/^Usage: artifact-ingest workflow/) as string,
    });
    expect((await runCli(['help', 'workflow'])).stdout).toBe(own.stdout);
    const bare = await runCli(['workflow']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('name a subcommand: list, start, status, advance, register, abort');
  });

  it('accepts --project before the command and before the subcommand', async () => {
    const projectDir = await tempProject();
    for (const args of [
      ['--project', projectDir, 'workflow', 'list', '--json'],
      ['workflow', '--project', projectDir, 'list', '--json'],
    ]) {
      const result = await runCli(args);
      expect(result.code, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveProperty('workflows');
    }
  });
});

describe('artifact-ingest workflow status: contracts and the terminal state', () => {
  it('shows the fix request of a contract step, then the terminal state once the run failed', async () => {
    const projectDir = await tempProject({
      'workflows/build.yaml': [
        'name: build',
        'version: "1"',
        'budgets:',
        '  max_fix_attempts: 1',
        'steps:',
        '  - id: develop',
        '    contract: development_result',
        '    instructions: "Write the parser."',
        '',
      ].join('\n'),
    });
    const run = (args: readonly string[]) =>
      runCli(['workflow', ...args], { cwd: projectDir, env: { ARTIFACT_INGEST: '' } });
    expect((await run(['start', 'build', '--run-id', 'b-1'])).code).toBe(0);
    const fix = await run(['advance', 'b-1', '--output', 'nothing']);
    expect(fix.code).toBe(0);
    expect(fix.stdout).toContain('contract: development_result  fix_needed  fix requests 1/1');
    expect(fix.stdout).toContain('Fix request 1 of 1');
    const ended = await run(['advance', 'b-1', '--output', 'still nothing']);
    // As run: an advance that ends the workflow in any terminal state but done exits 1.
    expect(ended.code, ended.stderr).toBe(1);
    const status = await run(['status', 'b-1']);
    expect(status.stdout).toMatch(/workflow build {2}run b-1 {2}failed/);
    expect(status.stdout).toMatch(/^terminal: budget_exceeded {2}at /m);
    expect(status.stdout).toContain('  read: (no artifact)');
    expect(status.stdout).toMatch(/max_fix_attempts: 1/);
  });
});

describe('artifact-ingest workflow start: nothing outside the project is read (issue 23)', () => {
  it('refuses every outside reference (exit 2, unknown_workflow) with one text and starts nothing', async () => {
    const fixture = await outsideWorkflowFixture();
    for (const [what, reference] of outsideReferences(fixture)) {
      const result = await workflowJson<{ error: { code: string; message: string } }>(fixture.projectDir, [
        'start',
        reference,
      ]);
      expect(result.code, what).toBe(2);
      expect(result.json.error, what).toEqual({
        code: 'unknown_workflow',
        message: `unknown_workflow: ${outsideRefusal(reference)}`,
      });
      for (const marker of OUTSIDE_MARKERS) expect(result.stdout + result.stderr, what).not.toContain(marker);
    }
    await expect(readFile(path.join(fixture.projectDir, '.agent', 'runs'))).rejects.toThrow(/ENOENT/);
  });

  it('takes a path relative to the current directory, which must lead under the project workflows/', async () => {
    const fixture = await outsideWorkflowFixture();
    const fromOutside = (reference: string) =>
      runCli(['workflow', 'start', reference, '--project', fixture.projectDir, '--json'], {
        cwd: fixture.outsideDir,
        env: { ARTIFACT_INGEST: '' },
      });
    const evil = await fromOutside('evil.yaml');
    expect(evil.code).toBe(2);
    expect(evil.stderr).toContain(outsideRefusal('evil.yaml'));
    const good = await fromOutside('../project/workflows/good.yaml');
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toMatchObject({ workflow: 'good', status: 'running' });
  });
});
