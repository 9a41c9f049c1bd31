import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/commands.js';
import { runCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

describe('runCli: commands and typos', () => {
  it.each([
    [['ingset'], "unknown command 'ingset'; did you mean ingest?"],
    [['verfy'], "unknown command 'verfy'; did you mean verify?"],
    [['zzzzzz'], "unknown command 'zzzzzz'; commands are: run, runs, show"],
    [['help', 'nope'], "unknown command 'nope'; commands are:"],
    [['help', 'ingset'], "unknown command 'ingset'; did you mean ingest?"],
    [['ingest', '--dryrun'], "unknown option '--dryrun'; did you mean --dry-run?"],
    [['verify', '--strct'], "unknown option '--strct'; did you mean --strict?"],
    [['runs', '--xyzzy'], "unknown option '--xyzzy'\n"],
  ])('%j exits 2 with %j and a usage hint', async (args, message) => {
    const result = await runCli(args, { cwd: await tempProject() });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(`artifact-ingest: ${message}`);
    expect(result.stderr).toMatch(/Run 'artifact-ingest( \w+)? --help' for usage\.\n$/);
  });

  it.each(Object.keys(COMMANDS))('%s --help exits 0 and prints what help %s prints', async (command) => {
    const own = await runCli([command, '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toMatch(new RegExp(`^Usage: artifact-ingest ${command}\\b`));
    const viaHelp = await runCli(['help', command]);
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(own.stdout);
  });

  it('prints the main help with exit 2 when no command is given, 0 for --help', async () => {
    expect(await runCli([])).toMatchObject({ code: 2, stdout: expect.stringMatching(/^Usage: /) as string });
    expect(await runCli(['--help'])).toMatchObject({ code: 0 });
  });

  it.each([['--help'], ['-h']])('help %s prints the main help with exit 0', async (flag) => {
    const main = await runCli(['--help']);
    expect(await runCli(['help', flag])).toEqual({ code: 0, stdout: main.stdout, stderr: '' });
  });
});

describe('runCli: --project before the command', () => {
  const project = (): Promise<string> => tempProject({ 'docs/a.md': fileBlock('txt', 'a.txt', 'a') });

  it.each([
    ['--project DIR', (dir: string) => ['--project', dir, 'ingest', '--run-id', 'r1']],
    ['--project=DIR', (dir: string) => [`--project=${dir}`, 'ingest', '--run-id', 'r1']],
    ['--project DIR after the command', (dir: string) => ['ingest', '--project', dir, '--run-id', 'r1']],
  ])('accepts %s', async (_name, args) => {
    const dir = await project();
    const result = await runCli(args(dir), { cwd: await tempProject() });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/docs\/a\.md\s+1\s+1/);
    const runs = await runCli(['--project', dir, 'runs', '--json']);
    expect(runs.code).toBe(0);
  });

  it('resolves a relative --project against the working directory', async () => {
    const dir = await project();
    const result = await runCli(['--project', path.basename(dir), 'ingest', '--dry-run'], {
      cwd: path.dirname(dir),
    });
    expect(result.code).toBe(0);
  });

  it.each([
    [['--project'], '--project needs a directory'],
    [['--project', 'a', 'runs', '--project', 'b'], '--project is given twice'],
  ])('%j exits 2: %s', async (args, message) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });
});

describe('runCli: --json errors', () => {
  it.each([
    [['runs', '--json', '--project', '/nonexistent/dir'], 'usage', 2],
    [['show', 'nope', '--json'], 'unknown_run', 2],
    [['show', '../x', '--json'], 'invalid_id', 2],
    [['ingest', '--json', '--mode', 'solo'], 'usage', 2],
    [['log', '../x.ts', '--json'], 'unknown_path', 2],
  ])('%j prints one JSON document {"error": {"code": %j}} and exits %i', async (args, code, exit) => {
    const dir = await tempProject({ 'docs/a.md': 'text\n' });
    const result = await runCli(args, { cwd: dir });
    expect(result.code).toBe(exit);
    const document = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(document.error.code).toBe(code);
    expect(result.stderr).toContain(document.error.message);
  });

  it('gives a bad config file as invalid_config with the line', async () => {
    const dir = await tempProject({
      'docs/a.md': 'x\n',
      'artifact-ingest.config.yaml': 'ingest:\n  enabeld: 1\n',
    });
    const result = await runCli(['ingest', '--json'], { cwd: dir });
    expect(result.code).toBe(2);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_config');
    expect(error.message).toMatch(/:2:.*enabeld/);
  });
});

describe('runCli: what an agent wrote is shown, never obeyed by the terminal', () => {
  it('prints a rejected path holding U+202E, a bell or an escape sequence as \\u escapes; --json keeps the values', async () => {
    const hostile = ['a\u202eb.ts', 'c\u0007d.ts', 'e\u001b[2Jf.ts'];
    const dir = await tempProject({
      'docs/x.md': hostile.map((file) => fileBlock('ts', file, 'x')).join('\n'),
    });
    const human = await runCli(['ingest', 'docs/x.md', '--project', dir, '--run-id', 'r1']);
    const printed = human.stdout + human.stderr;
    expect(printed).toMatch(/rejected\s+a\\u202eb\.ts/);
    expect(printed).toContain('c\\u0007d.ts');
    expect(printed).toContain('e\\u001b[2Jf.ts');
    // eslint-disable-next-line no-control-regex -- no raw control or bidi character reaches the terminal
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    const json = await runCli(['ingest', 'docs/x.md', '--project', dir, '--run-id', 'r2', '--json']);
    expect(JSON.stringify(JSON.parse(json.stdout))).toContain(JSON.stringify(hostile[0]).slice(1, -1));
  });
});
