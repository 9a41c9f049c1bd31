import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, spawnCli } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

/** Four documents of 450 blocks: about 600 KB of --json, far more than a pipe buffer holds. */
async function bigProject(): Promise<string> {
  const files: Record<string, string> = {};
  for (let d = 0; d < 4; d++)
    files[`docs/d${d}.md`] = Array.from({ length: 450 }, (_, i) =>
      fileBlock('txt', `d${d}/f${i}.txt`, `${i}`),
    ).join('\n');
  return tempProject(files);
}

// The few behaviours only the real binary has: its shebang, signals, and a pipe closed by the reader.
describe('the artifact-ingest binary', () => {
  it('starts with a node shebang and prints its version', async () => {
    expect((await readFile(CLI, 'utf8')).split('\n')[0]).toBe('#!/usr/bin/env node');
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    const result = await spawnCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(pkg.version);
  });

  it('is executable as the build leaves it, so npx and a linked bin run it after any rebuild', () => {
    // Run as a program (its shebang), not through node: "Permission denied" (126/127) without the execute bit.
    const result = spawnSync(CLI, ['--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(result.error).toBeUndefined();
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('stops quietly when stdout is closed early (`| head -1`): no stack trace, normal exit code', async () => {
    const dir = await bigProject();
    const command = `"${process.execPath}" "${CLI}" ingest --dry-run --json --project "${dir}" | head -1; echo "exit \${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', command], { encoding: 'utf8', timeout: 60_000 });
    expect(result.stdout).toBe('[\n');
    expect(result.stderr).toBe('exit 0\n');
  });

  it('ignores EPIPE on a pipe destroyed after the first chunk of --json output', async () => {
    const dir = await bigProject();
    const child = spawn(process.execPath, [CLI, 'ingest', '--dry-run', '--json', '--project', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it('exits 1 with an internal error, never 0, when a command stalls with nothing left to run', async () => {
    // A disk write that never answers and holds no handle: the event loop empties with the command unfinished,
    // which is how a stalled stream looks (the bundle writer's lost back-pressure once exited 0 this way).
    const dir = await tempProject({ '.agent/runs/run-stall/state.json': '{}\n' });
    const stall = path.join(dir, 'stall.mjs');
    await writeFile(
      stall,
      "import { open } from 'node:fs/promises';\nconst probe = await open(process.execPath, 'r');\nObject.getPrototypeOf(probe).write = () => new Promise(() => {});\nawait probe.close();\n",
    );
    const result = spawnSync(
      process.execPath,
      ['--import', stall, CLI, 'bundle', 'run-stall', '-o', 'out.tar.gz', '--project', dir],
      { cwd: dir, encoding: 'utf8', timeout: 60_000 },
    );
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^artifact-ingest: internal error: the command stopped before it finished/);
    expect(result.status).toBe(1);
    expect(existsSync(path.join(dir, 'out.tar.gz'))).toBe(false);
  });

  it('exits 130 on SIGINT, leaving a run that --resume finishes', async () => {
    const fixture = fileURLToPath(new URL('./fixtures/wait-for-release.ts', import.meta.url));
    const dir = await tempProject({
      'graphs/two.yaml':
        'name: two\nversion: "1"\ndescription: a slow node, then a write\nnodes:\n  - { id: a, type: agent_task, agent: slow, prompt: "go", output_path: "docs/a.md" }\n  - { id: b, type: write_file, depends_on: [a], content: "{a.output}", output_path: "docs/b.md" }\n',
    });
    const release = path.join(dir, 'release');
    const started = path.join(dir, 'slow-started');
    // The agent fixture is plain JavaScript: run as .mjs by node itself, each of its two starts skips tsx's loader.
    const agentScript = path.join(dir, 'wait-for-release.mjs');
    await copyFile(fixture, agentScript);
    const slowCommand = JSON.stringify([process.execPath, agentScript, release, started]);
    await writeFile(
      path.join(dir, 'artifact-ingest.config.yaml'),
      `agents:\n  slow: { kind: command, command: ${slowCommand}, timeout_ms: 60000 }\n`,
    );
    const child = spawn(process.execPath, [CLI, 'run', 'graphs/two.yaml', '--run-id', 'i1'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    const exited = new Promise((resolve) => child.on('close', resolve));
    const deadline = Date.now() + 20_000;
    while (!existsSync(started) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stdout).toContain('resume:    artifact-ingest run --resume i1');

    await writeFile(release, '');
    const resumed = await spawnCli(['run', '--resume', 'i1'], { cwd: dir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^total\s+2\/2 completed/m);
  });
});
