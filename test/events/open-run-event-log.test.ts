import { mkdir, readFile, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventLogError, openRunEventLog } from '../../src/events/index.js';
import type { EventLog } from '../../src/events/index.js';
import { InvalidIdError, parseRunId, runEventsPath } from '../../src/project/index.js';
import { createMemoryStore, openProject } from '../../src/store/index.js';
import { tempProject } from '../helpers/temp-project.js';

// openRunEventLog writes through the project's store: the same lines on any store, and nothing through a
// folder the files store would not write through.

const KEY = runEventsPath(parseRunId('r1'));

afterEach(() => {
  vi.useRealTimers();
});

/** The same events, as a run, a node and an ingest of it write them. */
function writeSample(log: EventLog): void {
  const node = log.child({ node_id: 'n1', doc_path: 'docs/plan.md' });
  log.write('INFO', 'run.started', { graph: 'single' });
  node.write('WARNING', 'ingest.block', { reason: 'token=abc', bytes: Buffer.from('secret sauce') });
  node.writeAll([
    { level: 'INFO', event: 'ingest.block', fields: { index: 1 } },
    { level: 'ERROR', event: 'ingest.error', fields: { code: 'io_error', message: 'line\nbreak' } },
  ]);
}

describe('openRunEventLog over a store', () => {
  it('writes the same lines over the memory store and the files store for the same events', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-03-01T12:00:00.000Z'));
    const dir = await tempProject();
    const memory = openProject(await tempProject(), { store: createMemoryStore() });
    for (const project of [dir, memory]) {
      const log = await openRunEventLog(project, 'r1', { run_id: 'r1' });
      writeSample(log);
      await log.close();
    }
    const fromFiles = await readFile(path.join(dir, KEY), 'utf8');
    expect(await memory.store.readText(KEY)).toBe(fromFiles);
    expect(fromFiles.split('\n')).toHaveLength(5);
    expect(fromFiles).not.toContain('abc');
    expect(fromFiles).not.toContain('sauce');
  });

  it("keeps a memory store's events in the store, under the layout key, and writes nothing on disk", async () => {
    const dir = await tempProject();
    const project = openProject(dir, { store: createMemoryStore() });
    await project.store.append(KEY, '{"event":"earlier.line"}\n');
    const log = await openRunEventLog(project, 'r1');
    log.write('INFO', 'run.started');
    await log.close();
    const lines = (await project.store.readText(KEY))?.trimEnd().split('\n') ?? [];
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1] ?? '')).toMatchObject({ level: 'INFO', event: 'run.started' });
    expect(await readdir(dir)).toEqual([]);
  });

  it("leaves a Project's store open for its owner", async () => {
    const project = openProject(await tempProject());
    const log = await openRunEventLog(project, 'r1');
    log.write('INFO', 'run.started');
    await log.close();
    expect(await project.store.readText(KEY)).toContain('"run.started"');
    await project.store.close();
  });

  it('refuses a run folder that is a symlink to an outside folder, writing nothing there', async () => {
    const outside = await tempProject();
    const dir = await tempProject();
    await mkdir(path.join(dir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(dir, '.agent/runs/r1'));
    const refused: unknown = await openRunEventLog(dir, 'r1').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(EventLogError);
    expect(refused).toMatchObject({
      syscall: 'open',
      code: 'write_refused',
      path: path.join(dir, KEY),
      message: expect.stringContaining('symlink') as string,
    });
    expect(await readdir(outside)).toEqual([]);
  });

  it('refuses a run id that is not one before touching the store', async () => {
    const store = createMemoryStore();
    await expect(openRunEventLog(openProject('/nowhere', { store }), '../r1')).rejects.toThrow(
      InvalidIdError,
    );
    expect(await store.list('.agent')).toEqual([]);
  });
});
