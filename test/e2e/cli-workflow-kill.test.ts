import { spawn } from 'node:child_process';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, runCli, spawnCli } from '../helpers/run-cli.js';
import { atScale } from '../helpers/test-scale.js';
import { readEvents, tempProject } from '../helpers/temp-project.js';

// Issue 23, "events lost on a kill": real `workflow advance` processes, SIGKILLed the moment state.json is
// replaced, then the run is loaded again (`workflow status`, a new process), as the next MCP call or CLI command
// would. The calls around the kills (start, the advances to the end, verify) run the CLI in this process.

const RUN = 'killed';
const TASKS = ['t1', 't2', 't3', 't4', 't5', 't6'];
const KILLS = atScale(2, 4);

const LOOP_WORKFLOW = `name: many
version: '1'
inputs: [items]
steps:
  - id: work
    type: loop
    over: items
    instructions: do {task}
    save_as: done
  - id: last
    instructions: end
`;

interface LoopState {
  readonly revision: number;
  readonly status: string;
  readonly step: string;
  readonly task?: { readonly index: number };
  readonly outputs: { readonly done?: readonly string[] };
}

const runDirOf = (projectDir: string): string => path.join(projectDir, '.agent/runs', RUN);

async function readState(projectDir: string): Promise<LoopState> {
  return JSON.parse(await readFile(path.join(runDirOf(projectDir), 'state.json'), 'utf8')) as LoopState;
}

async function inodeOf(file: string): Promise<number | undefined> {
  return (await stat(file).catch(() => undefined))?.ino;
}

/**
 * What state.json says happened that events.jsonl or the snapshots do not show: a saved pass without its
 * `step.completed`, the current pass without its `step.started` or its start snapshot, an event twice.
 */
async function gapsOf(projectDir: string): Promise<string[]> {
  const state = await readState(projectDir);
  const events = await readEvents(projectDir, RUN);
  const passes = (name: string): string[] =>
    events
      .filter((event) => event.event === name)
      .map((event) => `${String(event.step)}-${String(event.pass)}`);
  const completed = passes('step.completed');
  const started = passes('step.started');
  const gaps: string[] = [];
  const saved = state.outputs.done?.length ?? 0;
  for (let pass = 1; pass <= saved; pass += 1) {
    if (!completed.includes(`work-${String(pass)}`)) gaps.push(`no step.completed of work-${String(pass)}`);
  }
  if (state.status === 'running' && state.step === 'work' && state.task !== undefined) {
    const current = `work-${String(state.task.index)}`;
    if (!started.includes(current)) gaps.push(`no step.started of ${current}`);
    const snapshot = path.join(runDirOf(projectDir), 'snapshots', `${current}.json`);
    if ((await inodeOf(snapshot)) === undefined) gaps.push(`no start snapshot of ${current}`);
  }
  for (const [name, list] of [
    ['step.completed', completed],
    ['step.started', started],
  ] as const) {
    const repeated = list.filter((pass, index) => list.indexOf(pass) !== index);
    if (repeated.length > 0) gaps.push(`${name} twice for ${repeated.join(', ')}`);
  }
  return gaps;
}

/** Runs `workflow advance` and SIGKILLs it the moment it replaces state.json (before it can do anything after). */
async function advanceKilledAtStateWrite(projectDir: string, output: string): Promise<'killed' | 'exited'> {
  const stateFile = path.join(runDirOf(projectDir), 'state.json');
  const before = await inodeOf(stateFile);
  const child = spawn(
    process.execPath,
    [CLI, 'workflow', 'advance', RUN, '--project', projectDir, '--output', output],
    { stdio: 'ignore' },
  );
  const exited = new Promise<NodeJS.Signals | null>((resolve) => {
    child.on('exit', (_code, signal) => {
      resolve(signal);
    });
  });
  try {
    while (child.exitCode === null && child.signalCode === null) {
      // The rename gives state.json a new inode: the state is committed, what follows it is not yet done.
      if ((await inodeOf(stateFile)) !== before) {
        child.kill('SIGKILL');
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  return (await exited) === 'SIGKILL' ? 'killed' : 'exited';
}

describe('a workflow advance killed right after its state is written', () => {
  it('leaves no pass without its step events or start snapshot once the run is loaded again', async () => {
    const projectDir = await tempProject({ 'workflows/many.yaml': LOOP_WORKFLOW });
    const started = await runCli([
      'workflow',
      'start',
      'many',
      '--run-id',
      RUN,
      '--input',
      `items=${TASKS.join('\n')}`,
      '--project',
      projectDir,
    ]);
    expect(started.code, started.stderr).toBe(0);

    const found: string[] = [];
    let kills = 0;
    for (let round = 1; round <= KILLS; round += 1) {
      const revision = (await readState(projectDir)).revision;
      if ((await advanceKilledAtStateWrite(projectDir, `result ${String(round)}`)) === 'killed') kills += 1;
      // The kill came after the commit: the state moved on.
      expect((await readState(projectDir)).revision).toBe(revision + 1);
      // The next call on the run loads it, as a restarted MCP server's first call would.
      const status = await spawnCli(['workflow', 'status', RUN, '--project', projectDir]);
      expect(status.code, status.stderr).toBe(0);
      found.push(...(await gapsOf(projectDir)).map((gap) => `after kill ${String(round)}: ${gap}`));
    }
    expect(kills).toBe(KILLS);
    expect(found).toEqual([]);

    // What was appended late says so, and the run goes on to the end with one event per pass.
    const events = await readEvents(projectDir, RUN);
    for (const event of events.filter((line) => line.recovered === true)) {
      expect(['step.completed', 'step.started']).toContain(event.event);
    }
    for (const task of TASKS.slice(KILLS)) {
      const advanced = await runCli(['workflow', 'advance', RUN, '--project', projectDir, '--output', task]);
      expect(advanced.code, advanced.stderr).toBe(0);
    }
    const finished = await runCli(['workflow', 'advance', RUN, '--project', projectDir, '--output', 'end']);
    expect(finished.code, finished.stderr).toBe(0);
    expect((await readState(projectDir)).status).toBe('complete');
    const all = await readEvents(projectDir, RUN);
    const completedPasses = all
      .filter((event) => event.event === 'step.completed')
      .map((event) => `${String(event.step)}-${String(event.pass)}`);
    expect(completedPasses).toEqual([
      ...TASKS.map((_, index) => `work-${String(index + 1)}`),
      'last-undefined',
    ]);
    expect(all.filter((event) => event.event === 'workflow.completed')).toHaveLength(1);
    expect(all.filter((event) => event.event === 'run.terminal')).toHaveLength(1);
    const verify = await runCli(['verify', RUN, '--project', projectDir, '--json']);
    expect(verify.code, verify.stdout).toBe(0);
  });

  it('is reported by verify as events_gap until the next call on the run appends what is missing', async () => {
    const projectDir = await tempProject({ 'workflows/many.yaml': LOOP_WORKFLOW });
    const cli = (args: readonly string[]) => runCli([...args, '--project', projectDir]);
    expect((await cli(['workflow', 'start', 'many', '--run-id', RUN, '--input', 'items=a'])).code).toBe(0);
    expect((await cli(['workflow', 'advance', RUN, '--output', 'a done'])).code).toBe(0);
    expect((await cli(['workflow', 'advance', RUN, '--output', 'the end'])).code).toBe(0);
    expect((await readState(projectDir)).status).toBe('complete');
    // What a kill right after the ending state leaves: neither its events nor terminal.json.
    const lines = await readEvents(projectDir, RUN);
    await writeFile(
      path.join(runDirOf(projectDir), 'events.jsonl'),
      lines
        .filter((line) => line.state_revision !== 2)
        .map((line) => `${JSON.stringify(line)}\n`)
        .join(''),
    );
    await rm(path.join(runDirOf(projectDir), 'terminal.json'));

    const verify = await cli(['verify', '--json']);
    expect(verify.code).toBe(1);
    const report = JSON.parse(verify.stdout) as {
      problems: { code: string; runId?: string; message: string }[];
    };
    expect(report.problems).toEqual([
      expect.objectContaining({
        code: 'events_gap',
        runId: RUN,
        message: `workflow run ${RUN}: state.json is at revision 2 but events.jsonl lacks its step.completed, workflow.completed, run.terminal and .agent/runs/${RUN}/terminal.json is missing: a process was killed after writing the state; any workflow call on the run ('artifact-ingest workflow status ${RUN}') appends them, marked recovered`,
      }),
    ]);
    const text = await cli(['verify', RUN]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`events_gap: workflow run ${RUN}: state.json is at revision 2`);

    expect((await cli(['workflow', 'status', RUN])).code).toBe(0);
    expect((await cli(['verify'])).code).toBe(0);
    const recovered = (await readEvents(projectDir, RUN)).filter((line) => line.recovered === true);
    expect(recovered.map((line) => line.event)).toEqual([
      'step.completed',
      'workflow.completed',
      'run.terminal',
    ]);
    expect(
      JSON.parse(await readFile(path.join(runDirOf(projectDir), 'terminal.json'), 'utf8')),
    ).toMatchObject({
      state: 'done',
    });
  });
});
