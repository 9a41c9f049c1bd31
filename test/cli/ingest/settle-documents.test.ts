import { rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isWatchedDocument, trackSettling } from '../../../src/cli/ingest/settle-documents.js';
import { tempProject } from '../../helpers/temp-project.js';

const QUIET_MS = 300;

/** A tracker over docs/ of a real temp project, on a clock the test moves. */
async function tracked(files: Record<string, string>) {
  const projectDir = await tempProject(files);
  let clock = Date.now();
  const tracker = trackSettling(projectDir, 'docs', QUIET_MS, () => clock);
  const settledPaths = async () => (await tracker.settled()).map((entry) => entry.docPath);
  return {
    projectDir,
    tracker,
    settledPaths,
    advance: (ms: number) => {
      clock += ms;
    },
    setClock: (ms: number) => {
      clock = ms;
    },
  };
}

/**
 * Dates a file an hour ahead, so that the rename that follows leaves ctime before mtime: only the staged file's
 * event can tell the rename then, whether or not the rename falls in the clock tick of the file's last write.
 */
async function stampAhead(file: string): Promise<void> {
  const ahead = new Date(Date.now() + 3_600_000);
  await utimes(file, ahead, ahead);
}

describe('isWatchedDocument', () => {
  it.each([
    ['docs/a.md', true],
    ['docs/tasks/api.md', true],
    ['docs/.a.md', false],
    ['docs/.staging/a.md', false],
    ['docs/a.md.tmp', false],
    ['docs/tmpk2j3h4g5', false],
    ['docs/a.txt', false],
  ])('%s -> %s', (docPath, expected) => {
    expect(isWatchedDocument(docPath)).toBe(expected);
  });
});

describe('trackSettling', () => {
  it('settles a document renamed into place at once: the event of its temp file came with its own, and the temp is gone', async () => {
    const { projectDir, tracker, settledPaths } = await tracked({ 'docs/.a.md.tmp': 'whole' });
    await stampAhead(path.join(projectDir, 'docs/.a.md.tmp'));
    await rename(path.join(projectDir, 'docs/.a.md.tmp'), path.join(projectDir, 'docs/a.md'));
    // What fs.watch reports for a rename: both of its ends.
    tracker.mark('docs/.a.md.tmp');
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual(['docs/a.md']);
  });

  it('settles a document at once when its inode changed after its content (ctime past mtime), as a rename leaves it', async () => {
    const { projectDir, tracker, settledPaths } = await tracked({ 'docs/a.md': 'whole' });
    // What a rename a moment after the last write leaves (no staged file's event seen): ctime is now, mtime earlier.
    const written = new Date(Date.now() - 2_000);
    await utimes(path.join(projectDir, 'docs/a.md'), written, written);
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual(['docs/a.md']);
  });

  it('settles a renamed document when the event of its temp file is reported a moment after its own', async () => {
    const { projectDir, tracker, settledPaths, advance } = await tracked({ 'docs/.a.md.tmp': 'whole' });
    await stampAhead(path.join(projectDir, 'docs/.a.md.tmp'));
    await rename(path.join(projectDir, 'docs/.a.md.tmp'), path.join(projectDir, 'docs/a.md'));
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual([]);
    advance(5);
    tracker.mark('docs/.a.md.tmp');
    expect(await settledPaths()).toEqual(['docs/a.md']);
  });

  it('waits the quiet period for a document written in place, even with a temp file of the folder still being written', async () => {
    const { projectDir, tracker, settledPaths, advance } = await tracked({
      'docs/.b.md.tmp': 'half',
      'docs/a.md': 'first part',
    });
    // The staged file is still there: a write in progress, not the source of a rename.
    tracker.mark('docs/.b.md.tmp');
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual([]);
    await writeFile(path.join(projectDir, 'docs/a.md'), 'first part, second part');
    tracker.mark('docs/a.md');
    advance(QUIET_MS - 1);
    expect(await settledPaths()).toEqual([]);
    advance(QUIET_MS);
    expect(await settledPaths()).toEqual(['docs/a.md']);
  });

  it('does not take a temp file gone long before for the source of a rename', async () => {
    const { tracker, settledPaths, advance } = await tracked({ 'docs/a.md': 'written in place' });
    tracker.mark('docs/.gone.tmp');
    advance(200);
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual([]);
  });

  it('settles a document found by a scan at once when its mtime is older than the quiet period', async () => {
    const { projectDir, tracker, settledPaths } = await tracked({ 'docs/old.md': 'old' });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(path.join(projectDir, 'docs/old.md'), anHourAgo, anHourAgo);
    await tracker.scan();
    expect(await settledPaths()).toEqual(['docs/old.md']);
    expect(tracker.pending()).toBe(0);
  });

  it('holds a document written just now until the quiet period has passed without a change', async () => {
    const { projectDir, tracker, settledPaths, advance, setClock } = await tracked({ 'docs/new.md': 'new' });
    // The clock reads the file's mtime: it was written this very moment.
    setClock((await stat(path.join(projectDir, 'docs/new.md'))).mtimeMs);
    await tracker.scan();
    expect(await settledPaths()).toEqual([]);
    advance(QUIET_MS - 1);
    expect(await settledPaths()).toEqual([]);
    advance(1);
    expect(await settledPaths()).toEqual(['docs/new.md']);
  });

  it('starts the quiet period again when the file changes while it waits', async () => {
    const { projectDir, tracker, settledPaths, advance } = await tracked({ 'docs/a.md': 'part one' });
    tracker.mark('docs/a.md');
    expect(await settledPaths()).toEqual([]);
    advance(QUIET_MS - 10);
    await writeFile(path.join(projectDir, 'docs/a.md'), 'part one, part two');
    expect(await settledPaths()).toEqual([]);
    advance(QUIET_MS - 10);
    expect(await settledPaths()).toEqual([]);
    advance(10);
    expect(await settledPaths()).toEqual(['docs/a.md']);
  });

  it('drops a document that is removed or renamed away while it waits', async () => {
    const { projectDir, tracker, settledPaths, advance } = await tracked({ 'docs/gone.md': 'x' });
    tracker.mark('docs/gone.md');
    await rm(path.join(projectDir, 'docs/gone.md'));
    advance(QUIET_MS);
    expect(await settledPaths()).toEqual([]);
    expect(tracker.pending()).toBe(0);
  });

  it('passes over a handled document in later scans until its file changes', async () => {
    const { projectDir, tracker, advance } = await tracked({ 'docs/a.md': 'v1' });
    await tracker.scan();
    advance(QUIET_MS);
    const [first] = await tracker.settled();
    expect(first?.docPath).toBe('docs/a.md');
    if (first !== undefined) tracker.handled(first.docPath, first.signature);
    await tracker.scan();
    expect(tracker.pending()).toBe(0);
    await writeFile(path.join(projectDir, 'docs/a.md'), 'v2, longer');
    await tracker.scan();
    expect(tracker.pending()).toBe(1);
  });

  it('never marks a temp file, a dot folder or a file outside the pattern', async () => {
    const { tracker } = await tracked({
      'docs/.a.md.tmp': 'x',
      'docs/.cache/b.md': 'x',
      'docs/c.md.tmp': 'x',
      'docs/d.txt': 'x',
    });
    await tracker.scan();
    tracker.mark('docs/.a.md.tmp');
    tracker.mark('docs/c.md.tmp');
    expect(tracker.pending()).toBe(0);
  });
});
