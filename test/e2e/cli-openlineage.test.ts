import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { lineageRunUuid } from '../../src/report/index.js';
import type { RunEvent } from '../../src/report/index.js';
import { startStubServer } from '../helpers/stub-http-server.js';
import type { StubServer } from '../helpers/stub-http-server.js';
import { specProblemsOf } from '../helpers/openlineage-spec.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';
import { CLI, runCli, runProgram, spawnCli } from '../helpers/run-cli.js';

// `export openlineage` on real demo runs: the team graph and the ralph graph ending blocked. The built CLI runs in
// a child process where the process matters (its output, the API key kept out of it, `| head`); the rest runs the
// same CLI in this process, which is a second faster.

let root: string;
let team: string;
let teamRun: string;
let ralph: string;
let ralphRun: string;
let server: StubServer | undefined;

async function onlyRun(project: string): Promise<string> {
  const [runId, ...others] = await readdir(path.join(project, '.agent', 'runs'));
  expect(others).toEqual([]);
  if (runId === undefined) throw new Error('no run');
  return runId;
}

function parseLines(stdout: string): RunEvent[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as RunEvent);
}

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'openlineage-'));
  team = path.join(root, 'team');
  ralph = path.join(root, 'ralph');
  expect((await runCli(['demo', '--dir', team])).code).toBe(0);
  teamRun = await onlyRun(team);
  expect(
    (
      await runCli(['demo', 'ralph', '--scenario', 'blocked', '--dir', ralph], {
        env: { ARTIFACT_INGEST: '' },
      })
    ).code,
  ).toBe(1);
  ralphRun = await onlyRun(ralph);
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('artifact-ingest export openlineage', () => {
  it('prints the team demo run as NDJSON events, each valid against the OpenLineage spec, in time order', async () => {
    const result = await spawnCli(['export', 'openlineage', teamRun, '--project', team]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const events = parseLines(result.stdout);
    expect(events.length).toBeGreaterThan(4);
    for (const event of events) expect(specProblemsOf(event)).toEqual([]);
    const times = events.map((event) => Date.parse(event.eventTime));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events[0]).toMatchObject({
      eventType: 'START',
      job: { namespace: 'artifact-ingest', name: 'team' },
    });
    expect(events.at(-1)).toMatchObject({ eventType: 'COMPLETE', job: { name: 'team' } });
    const runUuid = lineageRunUuid('artifact-ingest', teamRun, null);
    expect(events[0]?.run.runId).toBe(runUuid);
    const steps = events.filter((event) => event.job.name.startsWith('team.'));
    for (const step of steps) expect(step.run.facets?.['parent']).toMatchObject({ run: { runId: runUuid } });
    // Each step run has exactly one START and one end.
    const byRun = new Map<string, string[]>();
    for (const step of steps)
      byRun.set(step.run.runId, [...(byRun.get(step.run.runId) ?? []), step.eventType]);
    for (const types of byRun.values()) expect(types).toEqual(['START', 'COMPLETE']);
    const outputs = steps.flatMap((event) => event.outputs ?? []);
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) {
      expect(output.name).toMatch(/^workspace\//);
      expect(output.facets?.['artifactIngest_version']).toMatchObject({
        contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
      });
    }
    const inputs = steps.flatMap((event) => event.inputs ?? []).map((input) => input.name);
    expect(inputs.every((name) => name.startsWith('docs/'))).toBe(true);
  });

  it('neither verifies nor audits: a tampered object is not re-hashed, the events are the same', async () => {
    const copy = path.join(root, 'team-tampered');
    await cp(team, copy, { recursive: true });
    const before = await runCli(['export', 'openlineage', teamRun, '--project', copy]);
    // The workspace files' objects: verify re-hashes them, the export needs only their records.
    const records = (await readFile(path.join(copy, '.agent', 'runs', teamRun, 'artifacts.jsonl'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { type: string; contentHash: string });
    const files = records.filter((record) => record.type === 'file');
    expect(files.length).toBeGreaterThan(0);
    for (const { contentHash } of files) {
      const hex = contentHash.slice('sha256:'.length);
      await writeFile(
        path.join(copy, '.agent', 'objects', 'sha256', hex.slice(0, 2), hex.slice(2)),
        'tampered',
      );
    }
    const after = await runCli(['export', 'openlineage', teamRun, '--project', copy]);
    expect(after.code).toBe(0);
    expect(after.stderr).not.toMatch(/corrupt|verify/);
    expect(parseLines(after.stdout).map((event) => event.run.runId)).toEqual(
      parseLines(before.stdout).map((event) => event.run.runId),
    );
    // verify itself still finds every tampered object.
    expect((await runCli(['verify', teamRun, '--project', copy])).code).not.toBe(0);
  });

  it('exports the same events again (the run UUIDs are derived, not random)', async () => {
    const first = await runCli(['export', 'openlineage', teamRun, '--project', team]);
    const second = await runCli(['export', 'openlineage', teamRun, '--project', team]);
    expect(second.stdout).toBe(first.stdout);
  });

  it('names jobs and datasets in --namespace', async () => {
    const result = await runCli([
      'export',
      'openlineage',
      teamRun,
      '--project',
      team,
      '--namespace',
      'team-a',
    ]);
    const events = parseLines(result.stdout);
    expect(new Set(events.map((event) => event.job.namespace))).toEqual(new Set(['team-a']));
    expect(events[0]?.run.runId).toBe(lineageRunUuid('team-a', teamRun, null));
  });

  it('ends the blocked ralph run with FAIL, its reason as errorMessage and the terminal state facet', async () => {
    const result = await runCli(['export', 'openlineage', ralphRun, '--project', ralph]);
    expect(result.code, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    for (const event of events) expect(specProblemsOf(event)).toEqual([]);
    const end = events.at(-1);
    expect(end).toMatchObject({ eventType: 'FAIL', job: { name: 'ralph' } });
    expect(end?.run.facets?.['artifactIngest_terminal']).toMatchObject({ state: 'blocked' });
    expect(end?.run.facets?.['errorMessage']?.['message']).toMatch(/^blocked: /);
    expect(events.some((event) => event.eventType === 'FAIL' && event.job.name.startsWith('ralph.'))).toBe(
      true,
    );
  });

  it('exports a workflow run: its steps as jobs, the file a step wrote as output, ABORT when it was aborted', async () => {
    const project = await tempProject({ 'artifact-ingest.config.yaml': 'ingest:\n  enabled: true\n' });
    const workflow = async (args: string[]) => {
      const result = await runCli(['workflow', ...args], { cwd: project, env: { ARTIFACT_INGEST: '' } });
      expect(result.code, result.stderr).toBe(0);
    };
    await workflow(['start', 'feature-dev', '--input', 'feature=login', '--run-id', 'fd-1']);
    await workflow(['advance', '--output', fileBlock('ts', 'src/login.ts', 'export const login = 1;\n')]);
    await workflow(['advance', '--output', 'one task']);
    await workflow(['abort', '--reason', 'changed my mind']);
    const result = await runCli(['export', 'openlineage', 'fd-1', '--project', project]);
    expect(result.code, result.stderr).toBe(0);
    const events = parseLines(result.stdout);
    for (const event of events) expect(specProblemsOf(event)).toEqual([]);
    expect(events.map((event) => `${event.job.name} ${event.eventType}`)).toEqual([
      'feature-dev START',
      'feature-dev.scope START',
      'feature-dev.scope COMPLETE',
      'feature-dev.plan START',
      'feature-dev.plan COMPLETE',
      'feature-dev ABORT',
    ]);
    expect(events[2]?.inputs?.map((input) => input.name)).toEqual(['docs/fd-1/scope.md']);
    expect(events[2]?.outputs?.map((output) => output.name)).toEqual(['workspace/src/login.ts']);
    expect(events[1]?.job.facets?.['jobType']).toMatchObject({ jobType: 'STEP' });
    expect(events[0]?.job.facets?.['jobType']).toMatchObject({ jobType: 'WORKFLOW' });
  });

  it("exports every file of a run past the report's listing cap of 2,000 files", async () => {
    // One file past the cap (maxFiles, and maxBlocks for the one document, are 2,000) is all a cap would drop.
    const blocks = Array.from({ length: 2001 }, (_, index) =>
      fileBlock('js', `src/f${String(index)}.js`, `export const f = ${String(index)};\n`),
    );
    const project = await tempProject({
      'artifact-ingest.config.yaml': 'ingest:\n  durability: none\n  limits:\n    max_blocks: 2001\n',
      'docs/many.md': `# Many\n\n${blocks.join('\n')}`,
    });
    const ingest = await runCli(['ingest', '--run-id', 'many', '--project', project]);
    expect(ingest.code, ingest.stderr).toBe(0);
    const result = await runCli(['export', 'openlineage', 'many', '--project', project]);
    expect(result.code, result.stderr).toBe(0);
    const outputs = new Set(
      parseLines(result.stdout)
        .flatMap((event) => event.outputs ?? [])
        .map((output) => output.name),
    );
    expect(outputs.size).toBe(2001);
    expect(outputs).toContain('workspace/src/f2000.js');
  });

  it('POSTs every event to URL/api/v1/lineage with the API key from OPENLINEAGE_API_KEY, never printed', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 201;
    });
    // The events as printed, to compare with what was sent: the child below is the command under test.
    const printed = parseLines((await runCli(['export', 'openlineage', teamRun, '--project', team])).stdout);
    const result = await spawnCli(
      ['export', 'openlineage', teamRun, '--project', team, '--url', `${server.url}/marquez`],
      {
        env: { OPENLINEAGE_API_KEY: 'key-that-must-not-show' },
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`sent ${printed.length} events to ${server.url}/marquez/api/v1/lineage`);
    expect(result.stderr).not.toContain('key-that-must-not-show');
    expect(server.requests.map((request) => request.path)).toEqual(
      printed.map(() => '/marquez/api/v1/lineage'),
    );
    expect(server.requests.map((request) => JSON.parse(request.body) as unknown)).toEqual(printed);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer key-that-must-not-show');
  });

  it('never prints an API key without a token’s shape that the server echoes in a 400, nor in a retried 503', async () => {
    // No credential pattern knows this shape: only its value, taken from the environment, finds it.
    const key = 'hunter2xyz';
    server = await startStubServer((request, number, response) => {
      // Echoed as the server saw it: the header, the bare key, the key inside a JSON string and URL-encoded.
      response.statusCode = number === 0 ? 503 : 400;
      response.setHeader('retry-after', '0');
      response.write(
        `bad credentials ${String(request.headers.authorization)}: key ${key} ${JSON.stringify({ key: `"${key}"` })} ?k=${encodeURIComponent(key)}\n`,
      );
    });
    const result = await spawnCli(
      ['export', 'openlineage', teamRun, '--project', team, '--url', server.url],
      { env: { OPENLINEAGE_API_KEY: key } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 503 Service Unavailable: bad credentials .*retrying/);
    expect(result.stderr).toMatch(
      /was not accepted after 2 attempts: HTTP 400 Bad Request: bad credentials /,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(key);
    expect(`${result.stdout}${result.stderr}`).not.toContain('hunter2');
    expect(result.stderr).toContain('key [REDACTED] {"key":"\\"[REDACTED]\\""} ?k=[REDACTED]');
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
  });

  it('removes a 4-character key by value, and keeps it out of the NDJSON printed without --url', async () => {
    const key = 'Zq7w';
    server = await startStubServer((_, __, response) => {
      response.statusCode = 401;
      response.write(`no such key: ${key}\n`);
    });
    const sent = await spawnCli(['export', 'openlineage', teamRun, '--project', team, '--url', server.url], {
      env: { OPENLINEAGE_API_KEY: key },
    });
    expect(sent.code).toBe(1);
    expect(sent.stderr).toContain('HTTP 401 Unauthorized: no such key: [REDACTED]');
    expect(`${sent.stdout}${sent.stderr}`).not.toContain(key);
    // Every output of the CLI, not only the sender's messages: the job name here is the key.
    const printed = await spawnCli(['export', 'openlineage', teamRun, '--project', team], {
      env: { OPENLINEAGE_API_KEY: 'team' },
    });
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).not.toContain('team');
    expect(parseLines(printed.stdout)[0]?.job.name).toBe('[REDACTED]');
  });

  it('warns that a key shorter than 4 characters is not removed by value from what is printed', async () => {
    server = await startStubServer((_, __, response) => {
      response.statusCode = 201;
    });
    const result = await spawnCli(
      ['export', 'openlineage', teamRun, '--project', team, '--url', server.url],
      { env: { OPENLINEAGE_API_KEY: 'k3y' } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^artifact-ingest: warning: OPENLINEAGE_API_KEY is shorter than 4 characters, so it is not removed from what is printed; use a longer key$/m,
    );
    expect(server.requests[0]?.headers.authorization).toBe('Bearer k3y');
  });

  it('exits 1 naming the status and the answer when the server refuses an event', async () => {
    server = await startStubServer((_, number, response) => {
      response.statusCode = number === 1 ? 422 : 201;
      if (number === 1) response.write('job name too long\n');
    });
    const result = await spawnCli(['export', 'openlineage', teamRun, '--project', team, '--url', server.url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /event 2 of \d+ \(team\.\S+ START\) was not accepted: HTTP 422 Unprocessable Entity: job name too long/,
    );
    expect(result.stderr).toMatch(/1 of \d+ events were accepted; fix the cause and export again/);
    expect(server.requests).toHaveLength(2);
  });

  it('survives | head', async () => {
    const command = `"${process.execPath}" "${CLI}" export openlineage ${teamRun} --project "${team}" | head -1; echo "exit \${PIPESTATUS[0]}" >&2`;
    const result = await runProgram('bash', ['-c', command]);
    expect(parseLines(result.stdout)).toHaveLength(1);
    expect(result.stderr).toMatch(/^exit 0\n$/);
  });

  it.each([
    [['export'], /name a format: openlineage/],
    [['export', 'openlinage', 'x'], /unknown export format 'openlinage'; did you mean openlineage\?/],
    [['export', 'openlineage'], /takes exactly one RUN_ID/],
    [
      ['export', 'openlineage', 'r', '--url', 'ftp://host'],
      /--url: the URL must start with http:\/\/ or https:\/\/, not ftp:\/\//,
    ],
    [['export', 'openlineage', 'r', '--url', 'localhost'], /--url: 'localhost' is not a URL/],
    [['export', 'openlineage', 'r', '--namespace', 'a b'], /--namespace must be 1 to 1024 letters/],
    [['export', 'openlineage', 'no-such-run'], /no-such-run/],
    [['export', 'openlineage', 'r', '--urll', 'x'], /did you mean --url\?/],
  ])('refuses %j with exit 2', async (args, message) => {
    const result = await runCli([...args, '--project', team]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('prints its help on export --help and export openlineage --help', async () => {
    const formats = await runCli(['export', '--help']);
    expect(formats.code).toBe(0);
    expect(formats.stdout).toContain('openlineage RUN_ID');
    const options = await runCli(['export', 'openlineage', '--help']);
    expect(options.code).toBe(0);
    expect(options.stdout).toContain('--namespace NS');
    expect(options.stdout).toContain('OPENLINEAGE_API_KEY');
    expect((await runCli(['help', 'export'])).stdout).toBe(formats.stdout);
  });
});
