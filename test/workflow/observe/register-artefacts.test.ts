import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactRecordsPath, parseNodeId, parseRunId } from '../../../src/project/index.js';
import { ObserveError, registerArtefacts } from '../../../src/workflow/index.js';
import type { RegisterArtefactsRequest } from '../../../src/workflow/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const RUN = parseRunId('wf-1');
const NOW = (): Date => new Date('2026-03-04T05:06:07.000Z');

function request(paths: unknown, already: readonly string[] = []): RegisterArtefactsRequest {
  return { runId: RUN, taskId: parseNodeId('scope'), agentId: 'assistant', paths, already };
}

async function recordLines(projectDir: string): Promise<Record<string, unknown>[]> {
  const file = path.join(projectDir, artifactRecordsPath(RUN));
  if (!existsSync(file)) return [];
  const text = await readFile(file, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('registerArtefacts', () => {
  it('registers relative and absolute paths project-relative and records each as a register artifact', async () => {
    const projectDir = await tempProject({ 'src/app.ts': 'export {};\n', 'docs/flow.mmd': 'graph TD\n' });
    const result = await registerArtefacts(
      projectDir,
      request(['./src/app.ts', path.join(projectDir, 'docs/flow.mmd')]),
      { now: NOW, durability: 'none' },
    );
    expect(result).toMatchObject({
      registered: ['src/app.ts', 'docs/flow.mmd'],
      duplicates: [],
      invalid: [],
    });
    const lines = await recordLines(projectDir);
    expect(lines.map((line) => [line.path, line.type, (line.metadata as { source: string }).source])).toEqual(
      [
        ['src/app.ts', 'file', 'register'],
        ['docs/flow.mmd', 'design', 'register'],
      ],
    );
    expect(lines[0]).toMatchObject({ runId: 'wf-1', taskId: 'scope', agentId: 'assistant' });
  });

  it('reports a path already registered in the run, or given twice in one call, as a duplicate', async () => {
    const projectDir = await tempProject({ 'a.md': 'a\n', 'b.md': 'b\n' });
    const result = await registerArtefacts(projectDir, request(['a.md', 'b.md', './b.md'], ['a.md']), {
      durability: 'none',
    });
    expect(result).toMatchObject({ registered: ['b.md'], duplicates: ['a.md', 'b.md'], invalid: [] });
    // a.md was never recorded before, so its duplicate registration records its current bytes once.
    expect((await recordLines(projectDir)).map((line) => line.path)).toEqual(['a.md', 'b.md']);
  });

  it('links a changed file to its previous version and records an unchanged duplicate only once', async () => {
    const projectDir = await tempProject({ 'plan.md': 'one\n' });
    const first = await registerArtefacts(projectDir, request(['plan.md']), { durability: 'none' });
    const again = await registerArtefacts(projectDir, request(['plan.md'], ['plan.md']), {
      durability: 'none',
    });
    expect(again.records).toEqual([]);
    await writeFile(path.join(projectDir, 'plan.md'), 'one\ntwo\n');
    const changed = await registerArtefacts(projectDir, request(['plan.md'], ['plan.md']), {
      durability: 'none',
    });
    expect(changed.duplicates).toEqual(['plan.md']);
    expect(changed.records[0]?.metadata).toMatchObject({
      previous: first.records[0]?.artifactId,
      linesAdded: 1,
      linesRemoved: 0,
      source: 'register',
    });
  });

  it('refuses paths outside the project, through symlinks, into .git or .agent, and non-files, recording nothing', async () => {
    const projectDir = await tempProject({
      'real/file.ts': 'x\n',
      '.git/config': '[core]\n',
      '.agent/runs/wf-1/state.json': '{}\n',
      'outside-sibling.txt': 'inside\n',
    });
    const outside = await tempProject({ 'secret.txt': 'secret\n' });
    await symlink(path.join(outside, 'secret.txt'), path.join(projectDir, 'link.txt'));
    await symlink(path.join(projectDir, 'real'), path.join(projectDir, 'linked-dir'));
    await symlink(outside, path.join(projectDir, 'escape'));
    await mkdir(path.join(projectDir, 'folder'));
    execFileSync('mkfifo', [path.join(projectDir, 'pipe')]);
    const cases: [string, string][] = [
      ['../outside-sibling.txt', 'outside_project'],
      [path.join(outside, 'secret.txt'), 'outside_project'],
      ['/etc/passwd', 'outside_project'],
      ['link.txt', 'symlink'],
      ['linked-dir/file.ts', 'symlink'],
      ['escape/secret.txt', 'symlink'],
      ['real/../link.txt', 'traversal'],
      ['.git/config', 'git_dir'],
      ['sub/.GIT/config', 'git_dir'],
      ['.agent/runs/wf-1/state.json', 'agent_dir'],
      ['missing.ts', 'not_found'],
      ['real/file.ts/inner', 'not_found'],
      ['folder', 'not_a_regular_file'],
      ['pipe', 'not_a_regular_file'],
      ['.', 'not_a_regular_file'],
      ['real/file.ts/', 'not_a_regular_file'],
      ['', 'empty_path'],
      ['a\u0007b.txt', 'control_char'],
      ['C:\\x.txt', 'drive_letter'],
      ['src\\x.txt', 'backslash'],
      ['aux.txt', 'reserved_name'],
    ];
    const result = await registerArtefacts(projectDir, request(cases.map(([raw]) => raw)), {
      durability: 'none',
    });
    expect(result.registered).toEqual([]);
    expect(result.duplicates).toEqual([]);
    expect(result.invalid.map((problem) => [problem.path, problem.code])).toEqual(cases);
    for (const problem of result.invalid) expect(problem.message).toContain(JSON.stringify(problem.path));
    expect(result.records).toEqual([]);
    expect(existsSync(path.join(projectDir, artifactRecordsPath(RUN)))).toBe(false);
  });

  it('says what to do in its messages', async () => {
    const projectDir = await tempProject({ 'folder/a.txt': 'a\n' });
    const result = await registerArtefacts(projectDir, request(['../x.txt', 'nope.txt']), {
      durability: 'none',
    });
    expect(result.invalid.map((problem) => problem.message)).toEqual([
      '"../x.txt" is outside the project; register only files inside the project',
      '"nope.txt" does not exist; create the file first, then register it',
    ]);
  });

  it('registers the valid paths of a mixed call and records only those', async () => {
    const projectDir = await tempProject({ 'ok.ts': 'ok\n' });
    const result = await registerArtefacts(projectDir, request(['../bad.ts', 'ok.ts', 'gone.ts']), {
      durability: 'none',
    });
    expect(result.registered).toEqual(['ok.ts']);
    expect(result.invalid.map((problem) => problem.code)).toEqual(['outside_project', 'not_found']);
    expect((await recordLines(projectDir)).map((line) => line.path)).toEqual(['ok.ts']);
  });

  it.each([
    ['a string', 'a.ts', 'paths must be an array of strings, got "a.ts"'],
    ['nothing', undefined, 'paths must be an array of strings, got nothing'],
    ['a mapping', { a: 1 }, 'paths must be an array of strings, got a mapping'],
    ['a number entry', ['a.ts', 42], 'paths must be an array of strings: paths[1] is 42'],
    ['a null entry', [null], 'paths must be an array of strings: paths[0] is nothing'],
  ])('throws invalid_paths when paths is %s, recording nothing', async (_name, paths, message) => {
    const projectDir = await tempProject({ 'a.ts': 'a\n' });
    const call = registerArtefacts(projectDir, request(paths), { durability: 'none' });
    await expect(call).rejects.toThrow(ObserveError);
    await expect(call).rejects.toMatchObject({ code: 'invalid_paths', message });
    expect(existsSync(path.join(projectDir, artifactRecordsPath(RUN)))).toBe(false);
  });

  it('accepts an absolute path through the real path of a symlinked project root', async () => {
    const target = await tempProject({ 'a.ts': 'a\n' });
    const holder = await tempProject();
    const linkedRoot = path.join(holder, 'project');
    await symlink(target, linkedRoot);
    const result = await registerArtefacts(linkedRoot, request([path.join(target, 'a.ts')]), {
      durability: 'none',
    });
    expect(result.registered).toEqual(['a.ts']);
  });
});
