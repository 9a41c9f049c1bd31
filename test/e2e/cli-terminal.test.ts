import { execFileSync, spawnSync } from 'node:child_process';
import { cp } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI } from '../helpers/run-cli.js';
import { fileBlock, tempProject } from '../helpers/temp-project.js';

// util-linux `script` gives the CLI a real pseudo-terminal, where progress is drawn.
const hasScript = spawnSync('script', ['--version']).status === 0;
const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

function onTerminal(args: readonly string[]): string {
  const command = [process.execPath, CLI, ...args].map(quote).join(' ');
  return execFileSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
}

describe.skipIf(!hasScript)('progress on a terminal', () => {
  it('ingest draws a progress line per document of a batch, then the table', async () => {
    const projectDir = await tempProject({
      'docs/a.md': fileBlock('txt', 'a.txt', 'a'),
      'docs/b.md': fileBlock('txt', 'b.txt', 'b'),
    });
    const screen = onTerminal(['ingest', '--project', projectDir]);
    expect(screen).toContain('[0/2] docs/a.md');
    expect(screen).toContain('[1/2] docs/b.md');
    expect(screen).toMatch(/total\s+2\s+2/);
  });

  it('run prints each node as it starts and completes, with its files', async () => {
    const projectDir = await tempProject({
      'artifact-ingest.config.yaml':
        'ingest: { enabled: true }\nagents:\n  planner: { kind: replay, dir: replies }\n  builder: { kind: replay, dir: replies }\n  auditor: { kind: replay, dir: replies }\n  writer: { kind: replay, dir: replies }\n',
    });
    await cp(
      fileURLToPath(new URL('../../fixtures/demo/replies/', import.meta.url)),
      path.join(projectDir, 'replies'),
      {
        recursive: true,
      },
    );
    const screen = onTerminal(['run', 'team', '--project', projectDir, '--input', 'goal=x']);
    expect(screen).toMatch(/\[0\/7\] started\s+plan/);
    expect(screen).toMatch(/completed\s+task_api\s+files: 4 written, 1 skipped, 0 rejected/);
    expect(screen).toMatch(/\[7\/7\] completed\s+final/);
  });
});
