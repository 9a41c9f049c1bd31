import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { link, mkdir, rename, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactRecordsPath, parseNodeId, parseRunId, sha256Hex } from '../../../src/project/index.js';
import { registerArtefacts } from '../../../src/workflow/index.js';
import type { RegisterArtefactsRequest, RegisterArtefactsResult } from '../../../src/workflow/index.js';
import type { WriteStep } from '../../../src/workspace/index.js';
import { startFolderFlipper } from '../../helpers/folder-flipper.js';
import { tempProject } from '../../helpers/temp-project.js';
import { withinMs } from '../../helpers/workspace-fixture.js';

const RUN = parseRunId('wf-1');
const INSIDE = 'inside bytes: the project file\n';
const OUTSIDE = 'outside bytes: must never be recorded\n';

function request(paths: readonly string[]): RegisterArtefactsRequest {
  return { runId: RUN, taskId: parseNodeId('scope'), agentId: 'assistant', paths, already: [] };
}

function outcomesOf(result: RegisterArtefactsResult): string[] {
  return [
    ...result.registered.map(() => 'registered'),
    ...result.invalid.map((problem) => `invalid:${problem.code}`),
  ];
}

describe('registerArtefacts against a hostile agent', () => {
  it('never records the outside file while a child process flips a folder to a symlink, at least 200 registrations long', async () => {
    const projectDir = await tempProject({ 'dir/file.txt': INSIDE });
    const outsideDir = await tempProject({ 'file.txt': OUTSIDE });
    const flipper = await startFolderFlipper(projectDir, 'dir', outsideDir);
    const tally = new Map<string, number>();
    const recorded: string[] = [];
    try {
      // 200 registrations at least, and on until both outcomes were met (a fast or a loaded machine may see one
      // of them rarely: the flipper holds each state 0-1 ms), at most 5,000.
      for (
        let attempt = 0;
        attempt < 200 || (attempt < 5_000 && !(tally.has('registered') && tally.has('invalid:symlink')));
        attempt += 1
      ) {
        const result = await registerArtefacts(projectDir, request(['dir/file.txt']), { durability: 'none' });
        for (const outcome of outcomesOf(result)) tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
        recorded.push(...result.records.map((record) => record.contentHash));
      }
    } finally {
      await flipper.stop();
    }
    const outcomes = Object.fromEntries(tally);
    // Each registration records the inside bytes or is refused; a folder caught mid-flip is simply not there.
    expect(
      Object.keys(outcomes).filter((key) => !/^(registered|invalid:(symlink|not_found))$/.test(key)),
    ).toEqual([]);
    expect(recorded.filter((hash) => hash !== `sha256:${sha256Hex(INSIDE)}`)).toEqual([]);
    expect(outcomes['registered']).toBeGreaterThan(0);
    // The race really ran: some registrations met the folder as a symlink.
    expect(outcomes['invalid:symlink']).toBeGreaterThan(0);
  }, 120_000);

  it('reads the folder it opened when the folder is swapped for a symlink between the walk and the read', async () => {
    const projectDir = await tempProject({ 'dir/file.txt': INSIDE });
    const outsideDir = await tempProject({ 'file.txt': OUTSIDE });
    let swapped = false;
    const swapAfterWalk = async (step: WriteStep): Promise<void> => {
      if (swapped || step.stage !== 'directory-opened' || step.directory !== 'dir') return;
      swapped = true;
      await rename(path.join(projectDir, 'dir'), path.join(projectDir, 'dir.away'));
      await symlink(outsideDir, path.join(projectDir, 'dir'));
    };
    const result = await registerArtefacts(projectDir, request(['dir/file.txt']), {
      durability: 'none',
      onStep: swapAfterWalk,
    });
    expect(swapped).toBe(true);
    expect(result.invalid).toEqual([]);
    expect(result.records.map((record) => record.contentHash)).toEqual([`sha256:${sha256Hex(INSIDE)}`]);
  });

  it('refuses a hard link to an outside file as hard_link and records nothing', async () => {
    const projectDir = await tempProject();
    const outsideDir = await tempProject({ 'secret.txt': OUTSIDE });
    await link(path.join(outsideDir, 'secret.txt'), path.join(projectDir, 'notes.md'));
    await mkdir(path.join(projectDir, 'src'));
    await link(path.join(outsideDir, 'secret.txt'), path.join(projectDir, 'src', 'deep.md'));
    const result = await registerArtefacts(projectDir, request(['notes.md', 'src/deep.md']), {
      durability: 'none',
    });
    expect(result.invalid.map((problem) => [problem.path, problem.code])).toEqual([
      ['notes.md', 'hard_link'],
      ['src/deep.md', 'hard_link'],
    ]);
    expect(result.invalid[0]?.message).toMatch(/hard link.*copy/);
    expect(result.registered).toEqual([]);
    expect(result.records).toEqual([]);
    expect(existsSync(path.join(projectDir, artifactRecordsPath(RUN)))).toBe(false);
  });

  it('refuses a FIFO at once as not_a_regular_file, without waiting for a writer', async () => {
    const projectDir = await tempProject();
    await mkdir(path.join(projectDir, 'dir'));
    execFileSync('mkfifo', [path.join(projectDir, 'dir', 'pipe')]);
    const result = await withinMs(
      registerArtefacts(projectDir, request(['dir/pipe']), { durability: 'none' }),
      10_000,
    );
    expect(result.invalid.map((problem) => problem.code)).toEqual(['not_a_regular_file']);
    expect(result.records).toEqual([]);
  });

  it('still registers a file whose only name is in the project', async () => {
    const projectDir = await tempProject({ 'dir/file.txt': INSIDE });
    await writeFile(path.join(projectDir, 'dir', 'other.txt'), 'other\n');
    const result = await registerArtefacts(projectDir, request(['dir/file.txt', 'dir/other.txt']), {
      durability: 'none',
    });
    expect(result.registered).toEqual(['dir/file.txt', 'dir/other.txt']);
  });
});
