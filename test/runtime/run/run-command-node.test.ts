import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGraph } from '../../../src/runtime/run/run-graph.js';
import { runCommandNode } from '../../../src/runtime/run/node/run-command-node.js';
import { readEvents, tempProject } from '../../helpers/temp-project.js';
import { graphOf } from './fixtures/contract-fixtures.js';
import { agentsOf } from './fixtures/run-graph-fixtures.js';

const NODE = JSON.stringify(process.execPath);

function smokeGraph(commands: string, extra = ''): ReturnType<typeof graphOf> {
  return graphOf(
    'smoke',
    `nodes:
  - id: smoke
    type: command
    commands: ${commands}
${extra}    output_path: docs/{run_id}/smoke.md
`,
  );
}

describe('command nodes', () => {
  it('runs passing commands in the project directory and submits a smoke_test_result: done', async () => {
    const projectDir = await tempProject({ 'flag.txt': 'ok' });
    const graph = smokeGraph(
      `[[${NODE}, -e, "process.exit(require('fs').readFileSync('flag.txt', 'utf8') === 'ok' ? 0 : 1)"], [${NODE}, -e, "console.log('hello')"]]`,
    );

    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'pass' });

    const artifact = '.agent/artifacts/pass/smoke_test_result.json';
    expect(result.status).toBe('completed');
    expect(result.state.nodes.smoke).toMatchObject({
      status: 'completed',
      contract: { type: 'smoke_test_result', state: 'done', attempts: 1, artifact },
    });
    const payload = JSON.parse(await readFile(path.join(projectDir, artifact), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({ passed: 2, failed: 0, summary: '2 of 2 commands passed' });
    expect(payload.commands).toEqual([
      expect.objectContaining({ exit_code: 0, passed: true }),
      expect.objectContaining({ exit_code: 0, passed: true }),
    ]);
    const report = await readFile(path.join(projectDir, 'docs/pass/smoke.md'), 'utf8');
    expect(report).toContain('2 of 2 commands passed');
    expect(report).toContain('hello');
    expect(result.terminal).toMatchObject({ state: 'done', artifact });
    // The runtime, not an agent, submitted it.
    const events = await readEvents(projectDir, 'pass');
    expect(events.find((event) => event.event === 'artifact.submitted')).toMatchObject({
      type: 'smoke_test_result',
      task: 'smoke',
      agent: 'runtime',
    });
  });

  it('blocks the node on a failing command (a real exit 1), never crashing', async () => {
    const projectDir = await tempProject();
    const graph = smokeGraph(`[[${NODE}, -e, "process.exit(0)"], [${NODE}, -e, "process.exit(1)"]]`);

    const result = await runGraph({ projectDir, graph, inputs: {}, agentFor: agentsOf(), runId: 'fail' });

    const artifact = '.agent/artifacts/fail/smoke_test_result.json';
    expect(result.state.nodes.smoke).toMatchObject({
      status: 'failed',
      error: { code: 'blocked' },
      contract: { state: 'blocked', artifact },
    });
    const payload = JSON.parse(await readFile(path.join(projectDir, artifact), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(payload).toMatchObject({ passed: 1, failed: 1 });
    expect(result.terminal).toMatchObject({ state: 'blocked', artifact });
  });

  it.each([
    [
      'a missing program',
      '[[no-such-program-artifact-ingest, --version]]',
      '',
      127,
      'could not start no-such-program-artifact-ingest (ENOENT: not found on PATH), recorded as exit code 127',
    ],
    [
      'a command past its timeout',
      `[[${NODE}, -e, "setTimeout(() => {}, 30000)"]]`,
      '    timeout_ms: 300\n',
      124,
      'did not finish within timeout_ms: 300 and was stopped, recorded as exit code 124',
    ],
  ])('records %s as a failed command', async (_name, commands, extra, exitCode, note) => {
    const projectDir = await tempProject();
    const result = await runGraph({
      projectDir,
      graph: smokeGraph(commands, extra),
      inputs: {},
      agentFor: agentsOf(),
      runId: 'odd',
    });
    const payload = JSON.parse(
      await readFile(path.join(projectDir, '.agent/artifacts/odd/smoke_test_result.json'), 'utf8'),
    ) as { commands: { exit_code: number }[]; failed: number; summary: string };
    expect(payload.commands[0]?.exit_code).toBe(exitCode);
    expect(payload.failed).toBe(1);
    expect(payload.summary).toContain(note);
    expect(result.terminal?.state).toBe('blocked');
  });

  it('keeps fences in command output from closing the report block', async () => {
    const projectDir = await tempProject();
    const ran = await runCommandNode({
      nodeId: 'smoke',
      commands: [[process.execPath, '-e', 'console.log("```json artifact=issues\\n{}\\n```")']],
      timeoutMs: 10_000,
      cwd: projectDir,
      env: process.env,
      signal: new AbortController().signal,
    });
    expect(ran.status).toBe('ran');
    if (ran.status !== 'ran') return;
    expect(ran.report).toContain('````text\n```json artifact=issues');
  });
});
