import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { submitArtifact } from '../../src/contracts/index.js';
import { LISTING_CAP } from '../../src/cli/render/cap-rows.js';
import { DEVELOPMENT_RESULT, contractProject } from '../helpers/contract-project.js';
import { runCli } from '../helpers/run-cli.js';

/** A project whose run-1 has one canonical development_result. */
async function cleanProject(): Promise<string> {
  const projectDir = await contractProject(['run-1', 'run-2']);
  const outcome = await submitArtifact({
    projectDir,
    runId: 'run-1',
    taskId: 'dev',
    agentId: 'claude',
    type: 'development_result',
    payload: DEVELOPMENT_RESULT,
    durability: 'none',
  });
  if (!outcome.ok) throw new Error(outcome.message);
  return projectDir;
}

const tampering = [
  {
    name: 'a forged file written straight into .agent/artifacts/',
    tamper: (projectDir: string) =>
      writeFile(path.join(projectDir, '.agent/artifacts/run-1/issues.json'), '{"issues":[]}\n'),
    code: 'non_canonical',
    path: '.agent/artifacts/run-1/issues.json',
  },
  {
    name: 'a file edited after submission',
    tamper: (projectDir: string) =>
      writeFile(
        path.join(projectDir, '.agent/artifacts/run-1/development_result.json'),
        `${JSON.stringify({ ...DEVELOPMENT_RESULT, outcome: 'partial' }, null, 2)}\n`,
      ),
    code: 'modified',
    path: '.agent/artifacts/run-1/development_result.json',
  },
];

describe('artifact-ingest audit', () => {
  it('exits 0 with --strict on a clean run and says so', async () => {
    const projectDir = await cleanProject();
    const result = await runCli(['audit', '--strict', '--project', projectDir]);
    expect(result).toEqual({
      code: 0,
      stdout: 'audited 2 run(s): 1 file(s), 1 submit record(s); no findings\n',
      stderr: '',
    });
    const scoped = await runCli(['audit', 'run-1', '--strict', '--project', projectDir]);
    expect(scoped.stdout).toBe('audited run run-1: 1 file(s), 1 submit record(s); no findings\n');
  });

  for (const { name, tamper, code, path: where } of tampering) {
    it(`exits 1 with --strict on ${name}, 0 without`, async () => {
      const projectDir = await cleanProject();
      await tamper(projectDir);
      const strict = await runCli(['audit', '--strict', '--project', projectDir]);
      expect(strict.code).toBe(1);
      const [header, row, summary] = strict.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^code\s+run\s+path\s+message$/);
      expect(row).toMatch(new RegExp(`^${code}\\s+run-1\\s+${where.replaceAll('.', '\\.')}\\s+\\S`));
      expect(summary).toMatch(/; 1 finding\(s\)$/);
      const lenient = await runCli(['audit', 'run-1', '--project', projectDir]);
      expect(lenient.code).toBe(0);
      expect(lenient.stdout).toContain(where);
    });
  }

  it('prints the report as JSON with --json', async () => {
    const projectDir = await cleanProject();
    await writeFile(path.join(projectDir, '.agent/artifacts/run-1/issues.json'), '{}');
    const result = await runCli(['audit', '--json', '--strict', '--project', projectDir]);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toEqual({
      scope: {},
      runs: ['run-1', 'run-2'],
      files: 2,
      records: 1,
      findings: [
        {
          code: 'non_canonical',
          run_id: 'run-1',
          path: '.agent/artifacts/run-1/issues.json',
          type: 'issues',
          message: expect.stringContaining('no submit record') as unknown,
        },
      ],
    });
  });

  it('caps the table on a terminal and never when piped', async () => {
    const projectDir = await cleanProject();
    const forged = LISTING_CAP + 5;
    await Promise.all(
      Array.from({ length: forged }, (_, index) =>
        writeFile(path.join(projectDir, `.agent/artifacts/run-1/forged-${String(index)}.txt`), 'x'),
      ),
    );
    const terminal = await runCli(['audit', '--project', projectDir], { terminalColumns: 120 });
    expect(terminal.stdout).toContain('... and 5 more; --json for all');
    expect(terminal.stdout.split('\n').filter((line) => line.startsWith('non_canonical'))).toHaveLength(
      LISTING_CAP,
    );
    const piped = await runCli(['audit', '--project', projectDir]);
    expect(piped.stdout.split('\n').filter((line) => line.startsWith('non_canonical'))).toHaveLength(forged);
  });

  it('refuses an unknown RUN_ID with the shared unknown-run message (exit 2, as verify)', async () => {
    const projectDir = await cleanProject();
    const result = await runCli(['audit', 'run-9', '--project', projectDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `no run "run-9" in .agent/runs/; list the runs with 'artifact-ingest runs'`,
    );
    const json = await runCli(['audit', 'run-9', '--json', '--project', projectDir]);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: 'unknown_run' } });
  });

  const usage = [
    { name: 'two RUN_IDs', args: ['audit', 'run-1', 'run-2'], stderr: 'at most one RUN_ID' },
    { name: 'a misspelt flag', args: ['audit', '--stritc'], stderr: 'did you mean --strict?' },
    { name: 'a RUN_ID that cannot be an id', args: ['audit', '../run-1'], stderr: 'run id' },
  ];
  for (const { name, args, stderr } of usage) {
    it(`exits 2 on ${name}`, async () => {
      const projectDir = await cleanProject();
      const result = await runCli([...args, '--project', projectDir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(stderr);
    });
  }

  it('prints its help with --help', async () => {
    const result = await runCli(['audit', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: artifact-ingest audit \[RUN_ID\] \[--strict\]/);
  });
});
