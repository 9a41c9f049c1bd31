import { spawnSync } from 'node:child_process';
import { access, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifactRecords } from '../../src/artifacts/index.js';
import { MAX_ARTIFACT_BYTES, contractSummary } from '../../src/contracts/index.js';
import { parseRunId } from '../../src/project/index.js';
import { DEVELOPMENT_RESULT, commitMessage, contractProject } from '../helpers/contract-project.js';
import { runCli, spawnCli } from '../helpers/run-cli.js';
import { readEvents } from '../helpers/temp-project.js';

const ARTIFACT = '.agent/artifacts/run-1/development_result.json';

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

/** A project with run-1 and the payload saved as payload.json. */
async function projectWithPayload(payload: unknown): Promise<string> {
  const projectDir = await contractProject();
  await writeFile(path.join(projectDir, 'payload.json'), JSON.stringify(payload));
  return projectDir;
}

describe('artifact-ingest submit: accepted (exit 0)', () => {
  it('submits FILE and prints the path and the hash', async () => {
    const projectDir = await projectWithPayload(DEVELOPMENT_RESULT);
    const result = await runCli(['submit', 'development_result', 'payload.json', '--run-id', 'run-1'], {
      cwd: projectDir,
    });
    expect(result).toMatchObject({ code: 0, stderr: '' });
    const [where, hash] = result.stdout.split('\n');
    expect(where).toBe(ARTIFACT);
    expect(hash).toMatch(/^sha256:[0-9a-f]{64} \(\d+ bytes; record art-[0-9a-f]{12}, first submission\)$/);
    const file = JSON.parse(await readFile(path.join(projectDir, ARTIFACT), 'utf8')) as unknown;
    expect(file).toEqual(DEVELOPMENT_RESULT);
    const [record] = (await readArtifactRecords(projectDir, parseRunId('run-1'))).records;
    expect(record).toMatchObject({ taskId: 'cli', agentId: 'cli', metadata: { source: 'submit' } });
    const submitted = (await readEvents(projectDir, 'run-1')).filter((e) => e.event === 'artifact.submitted');
    expect(submitted).toMatchObject([{ task: 'cli', agent: 'cli', path: ARTIFACT }]);
  });

  it('reads the payload from standard input with - and without FILE, and takes --node-id', async () => {
    const projectDir = await contractProject();
    const first = await runCli(
      ['submit', 'commit_message', '-', '--run-id', 'run-1', '--node-id', 'commit', '--project', projectDir],
      { stdin: JSON.stringify(commitMessage('from stdin')) },
    );
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['submit', 'commit_message', '--run-id', 'run-1', '--project', projectDir], {
      stdin: JSON.stringify(commitMessage('from stdin again')),
    });
    expect(second.code, second.stderr).toBe(0);
    const records = (await readArtifactRecords(projectDir, parseRunId('run-1'))).records;
    expect(records.map((r) => r.taskId)).toEqual(['commit', 'cli']);
    expect(second.stdout).toContain(`previous ${records[0]?.artifactId ?? '?'}`);
  });

  it('prints the outcome as JSON with --json', async () => {
    const projectDir = await projectWithPayload(DEVELOPMENT_RESULT);
    const result = await runCli(
      ['submit', 'development_result', 'payload.json', '--run-id', 'run-1', '--json'],
      { cwd: projectDir },
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      ok: true,
      type: 'development_result',
      path: ARTIFACT,
      contentHash: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as unknown,
      bytes: expect.any(Number) as unknown,
      taskId: 'cli',
      artifactId: expect.stringMatching(/^art-/) as unknown,
      submittedAt: expect.any(String) as unknown,
    });
  });
});

describe('artifact-ingest submit: refused (exit 1)', () => {
  it('prints each field error on stderr, one per line, then the fields of the type, and writes nothing', async () => {
    const projectDir = await projectWithPayload({
      ...DEVELOPMENT_RESULT,
      outcome: 'done',
      changed_files: [{ path: '../etc/passwd', change: 'changed' }],
    });
    const result = await runCli(['submit', 'development_result', 'payload.json', '--run-id', 'run-1'], {
      cwd: projectDir,
    });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    // What the type requires comes inline, and no pointer at docs/contracts/, a file the project does not have.
    const [refusal = '', summary] = result.stderr.split('artifact again.\n');
    expect(summary).toBe(`${contractSummary('development_result')}\n`);
    expect(result.stderr).not.toContain('docs/contracts');
    const lines = `${refusal}artifact again.`.split('\n');
    expect(lines[0]).toBe('The development_result artifact was refused: 3 fields to fix.');
    expect(lines.slice(1, -1).sort()).toEqual([
      expect.stringMatching(
        /^- changed_files\[0\]\.change: expected one of "added", "modified", "deleted", got "changed"$/,
      ),
      expect.stringMatching(/^- changed_files\[0\]\.path: expected a project-relative path/),
      expect.stringMatching(/^- outcome: expected one of "completed", "partial", "failed", got "done"$/),
    ]);
    expect(lines.at(-1)).toMatch(/submit the whole development_result artifact again/);
    expect(await exists(path.join(projectDir, '.agent', 'artifacts'))).toBe(false);
    expect(await readdir(path.join(projectDir, '.agent', 'runs', 'run-1'))).toEqual([]);
  });

  it('prints the refusal as JSON with --json, errors included', async () => {
    const projectDir = await projectWithPayload({ type: 'feat', subject: 'ends with a period.' });
    const result = await runCli(['submit', 'commit_message', 'payload.json', '--run-id', 'run-1', '--json'], {
      cwd: projectDir,
    });
    expect(result.code).toBe(1);
    const outcome = JSON.parse(result.stdout) as { errors: { path: string }[] };
    expect(outcome).toMatchObject({ ok: false, code: 'invalid_artifact', type: 'commit_message' });
    expect(outcome.errors.map((e) => e.path).sort()).toEqual(['breaking', 'subject']);
  });

  const bad = [
    {
      name: 'text that is not JSON',
      bytes: Buffer.from('{"outcome": '),
      expected: /\(root\): expected one JSON object/,
    },
    {
      name: 'bytes that are not UTF-8',
      bytes: Buffer.from([0x7b, 0xff, 0x7d]),
      expected: /\(root\): expected UTF-8 JSON/,
    },
    {
      name: 'a payload over 1 MiB',
      bytes: Buffer.alloc(MAX_ARTIFACT_BYTES + 10, 0x20),
      expected: new RegExp(`\\(root\\): expected at most ${String(MAX_ARTIFACT_BYTES)} bytes of JSON`),
    },
  ];
  for (const { name, bytes, expected } of bad) {
    it(`refuses ${name} with a (root) field error`, async () => {
      const projectDir = await contractProject();
      await writeFile(path.join(projectDir, 'payload.json'), bytes);
      const result = await runCli(['submit', 'development_result', 'payload.json', '--run-id', 'run-1'], {
        cwd: projectDir,
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(expected);
      expect(await exists(path.join(projectDir, '.agent', 'artifacts'))).toBe(false);
    });
  }

  it('refuses an oversized payload on standard input the same way', async () => {
    const projectDir = await contractProject();
    const result = await runCli(['submit', 'issues', '-', '--run-id', 'run-1', '--project', projectDir], {
      stdin: ' '.repeat(MAX_ARTIFACT_BYTES + 1),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('more in standard input');
  });
});

describe('artifact-ingest submit: usage (exit 2)', () => {
  const cases = [
    {
      name: 'an unknown type, with a suggestion',
      args: ['submit', 'developement_result', 'payload.json', '--run-id', 'run-1'],
      stderr: "unknown artifact type 'developement_result'; did you mean development_result?",
    },
    { name: 'no TYPE', args: ['submit', '--run-id', 'run-1'], stderr: 'submit needs TYPE' },
    {
      name: 'a missing --run-id',
      args: ['submit', 'development_result', 'payload.json'],
      stderr: 'submit needs --run-id ID',
    },
    {
      name: 'an unknown run',
      args: ['submit', 'development_result', 'payload.json', '--run-id', 'run-9'],
      stderr: 'no run "run-9" in .agent/runs/',
    },
    {
      name: 'a bad --node-id',
      args: ['submit', 'development_result', 'payload.json', '--run-id', 'run-1', '--node-id', '../x'],
      stderr: '--node-id',
    },
    {
      name: 'an unreadable FILE',
      args: ['submit', 'development_result', 'missing.json', '--run-id', 'run-1'],
      stderr: 'missing.json cannot be read',
    },
    {
      name: 'a FILE that is a folder',
      args: ['submit', 'development_result', '.agent', '--run-id', 'run-1'],
      stderr: 'is not a regular file',
    },
    {
      name: 'no FILE and no input',
      args: ['submit', 'development_result', '--run-id', 'run-1'],
      stderr: 'submit needs the payload',
    },
    {
      name: 'a misspelt flag',
      args: ['submit', 'development_result', 'payload.json', '--runid', 'run-1'],
      stderr: "unknown option '--runid'; did you mean --run-id?",
    },
    {
      name: 'two FILEs',
      args: ['submit', 'development_result', 'a.json', 'b.json', '--run-id', 'run-1'],
      stderr: 'at most one FILE',
    },
  ];
  for (const { name, args, stderr } of cases) {
    it(`exits 2 on ${name}, writing nothing`, async () => {
      const projectDir = await projectWithPayload(DEVELOPMENT_RESULT);
      const result = await runCli(args, { cwd: projectDir });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(stderr);
      expect(await exists(path.join(projectDir, '.agent', 'artifacts'))).toBe(false);
    });
  }

  it('exits 2 on a FIFO with no writer at FILE, at once, where a plain open would wait for a writer', async () => {
    const projectDir = await projectWithPayload(DEVELOPMENT_RESULT);
    expect(spawnSync('mkfifo', [path.join(projectDir, 'pipe.json')]).status).toBe(0);
    const result = await runCli(['submit', 'development_result', 'pipe.json', '--run-id', 'run-1'], {
      cwd: projectDir,
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('pipe.json is not a regular file');
  });

  it('prints its help with --help', async () => {
    const result = await runCli(['submit', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest submit TYPE \[FILE \| -\] --run-id ID/);
  });
});

describe('artifact-ingest submit: the binary', () => {
  it('keeps both versions of two submissions run at once, and one file', async () => {
    const projectDir = await contractProject();
    await writeFile(path.join(projectDir, 'a.json'), JSON.stringify(commitMessage('from process a')));
    await writeFile(path.join(projectDir, 'b.json'), JSON.stringify(commitMessage('from process b')));
    const [a, b] = await Promise.all(
      ['a.json', 'b.json'].map((file) =>
        spawnCli(['submit', 'commit_message', file, '--run-id', 'run-1', '--json'], { cwd: projectDir }),
      ),
    );
    expect(a, a?.stderr).toMatchObject({ code: 0 });
    expect(b, b?.stderr).toMatchObject({ code: 0 });
    const records = (await readArtifactRecords(projectDir, parseRunId('run-1'))).records;
    expect(records).toHaveLength(2);
    expect(records[1]?.metadata.previous).toBe(records[0]?.artifactId);
    expect(await readdir(path.join(projectDir, '.agent', 'artifacts', 'run-1'))).toEqual([
      'commit_message.json',
    ]);
    const outcomes = [a, b].map((result) => JSON.parse(result?.stdout ?? '') as { contentHash: string });
    expect(outcomes.map((o) => o.contentHash).sort()).toEqual(records.map((r) => r.contentHash).sort());
  });
});
