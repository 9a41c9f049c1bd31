import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, runCli } from '../helpers/run-cli.js';
import { treeDigest } from '../helpers/tree-digest.js';
import type { RunReport } from '../../src/report/index.js';

// The demo project (team graph, replay agent, ingest on) made by the real CLI; every report is read from it.

let root: string;
let project: string;
let runId: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'ai-cli-report-'));
  project = path.join(root, 'demo');
  const demo = await runCli(['demo', '--dir', project]);
  expect(demo.code).toBe(0);
  const runs = await readdir(path.join(project, '.agent', 'runs'));
  expect(runs).toHaveLength(1);
  runId = runs[0] ?? '';
}, 60_000);

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freshDir(): Promise<string> {
  return mkdtemp(path.join(root, 'out-'));
}

describe('artifact-ingest report', () => {
  it('the demo ends by writing the run report into the demo project and naming it', async () => {
    const written = path.join(project, `${runId}.report.html`);
    const page = await readFile(written, 'utf8');
    expect(page).toContain('<meta name="generator" content="artifact-ingest report">');
    expect(page).toContain(`<title>Run ${runId} · artifact-ingest report</title>`);
  });

  it('writes RUN_ID.report.html in the current directory, names it with its size, and changes nothing in the project', async () => {
    const cwd = await freshDir();
    const before = await treeDigest(project);
    const result = await runCli(['report', runId, '--project', project], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const file = path.join(cwd, `${runId}.report.html`);
    const { size } = await stat(file);
    expect(result.stdout).toBe(`Wrote ${file} (${(size / 1024).toFixed(1)} KB)\n`);
    expect(await readdir(cwd)).toEqual([`${runId}.report.html`]);
    expect(await treeDigest(project)).toEqual(before);
    const page = await readFile(file, 'utf8');
    // The demo's hostile paths are refused, with their reasons on the page.
    expect(page).toContain('data-rejected="true"');
    expect(page).toContain('<span class="badge s-rejected">rejected</span>');
    // Self-contained: nothing to fetch (agent text may name URLs, as text or links, never as a source).
    expect(page).not.toMatch(/\s(?:src|srcset|data|poster)=/);
    expect(page).not.toContain('<link');
  });

  it('prints the model with --json and the page with -o -', async () => {
    const json = await runCli(['report', runId, '--project', project, '--json']);
    expect(json.code).toBe(0);
    const model = JSON.parse(json.stdout) as RunReport;
    expect(model.reportVersion).toBe(1);
    expect(model.run.runId).toBe(runId);
    expect(model.steps.length).toBeGreaterThan(0);
    const page = await runCli(['report', runId, '--project', project, '-o', '-']);
    expect(page.code).toBe(0);
    expect(page.stdout.startsWith('<!doctype html>')).toBe(true);
    expect(page.stdout).toContain(`<title>Run ${runId} · artifact-ingest report</title>`);
  });

  it('replaces an earlier report, but keeps any other file unless --force', async () => {
    const cwd = await freshDir();
    expect((await runCli(['report', runId, '--project', project, '-o', 'r.html'], { cwd })).code).toBe(0);
    expect((await runCli(['report', runId, '--project', project, '-o', 'r.html'], { cwd })).code).toBe(0);
    await writeFile(path.join(cwd, 'notes.html'), '<p>mine</p>');
    const refused = await runCli(['report', runId, '--project', project, '-o', 'notes.html'], { cwd });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('is not a report this command wrote; pass --force to replace it');
    expect(await readFile(path.join(cwd, 'notes.html'), 'utf8')).toBe('<p>mine</p>');
    const forced = await runCli(['report', runId, '--project', project, '-o', 'notes.html', '--force'], {
      cwd,
    });
    expect(forced.code).toBe(0);
    expect(await readFile(path.join(cwd, 'notes.html'), 'utf8')).toContain('artifact-ingest report');
  });

  it('writes a path lineage page with --path, named after the path', async () => {
    const cwd = await freshDir();
    const result = await runCli(['report', '--path', 'src/server.js', '--project', project], { cwd });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const [file] = await readdir(cwd);
    expect(file).toMatch(/^path-.*server\.js\.report\.html$/);
    const page = await readFile(path.join(cwd, file ?? ''), 'utf8');
    expect(page).toContain('server.js</code></h1>');
    expect(page).toContain(`<code>${runId}</code>`);
  });

  it.each([
    [['report'], 'report takes exactly one RUN_ID, or --path P'],
    [['report', 'a', 'b'], 'report takes exactly one RUN_ID, or --path P'],
    [['report', 'run-x', '--path', 'src/a.ts'], 'report --path takes no RUN_ID'],
    [['report', '--path', ''], '--path needs a path'],
    [['report', 'run-x', '-o', ''], '-o needs a file name'],
    [['report', 'run-x', '--json', '-o', 'x.json'], '--json prints the model on stdout'],
    [['report', 'no-such-run'], 'no run "no-such-run"'],
    [['report', 'x', '--forse'], 'did you mean --force?'],
  ])('refuses %j with a usage error (exit 2)', async (args, message) => {
    const result = await runCli([...args, '--project', project], { cwd: await freshDir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  });

  it('has --help, and `help report` prints the same', async () => {
    const help = await runCli(['report', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: artifact-ingest report RUN_ID [-o FILE]');
    expect((await runCli(['help', 'report'])).stdout).toBe(help.stdout);
  });

  it('stops quietly when stdout is closed early (`-o - | head -1`)', () => {
    const command = `"${process.execPath}" "${CLI}" report "${runId}" --project "${project}" -o - | head -1; echo "exit \${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', command], { encoding: 'utf8' });
    expect(result.stdout).toBe('<!doctype html>\n');
    expect(result.stderr).toBe('exit 0\n');
  });
});
