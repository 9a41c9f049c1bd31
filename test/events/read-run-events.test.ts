import { execFileSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRunEvents } from '../../src/events/index.js';
import { parseRunId, runEventsPath } from '../../src/project/index.js';
import { createMemoryStore, openProject } from '../../src/store/index.js';
import type { ProjectRef } from '../../src/store/index.js';
import { tempProject } from '../helpers/temp-project.js';

const runId = parseRunId('r1');

async function collect(projectDir: ProjectRef, marker: string): Promise<Readonly<Record<string, unknown>>[]> {
  const events = [];
  for await (const event of readRunEvents(projectDir, runId, marker)) events.push(event);
  return events;
}

describe('readRunEvents', () => {
  it('yields the parsed lines that hold the marker, in order, skipping torn and non-object lines', async () => {
    const projectDir = await tempProject({
      '.agent/runs/r1/events.jsonl': [
        '{"event":"a.one","n":1}',
        '{"event":"b.other","n":2}',
        '{"event":"a.one","n":3',
        '["a.one"]',
        '',
        '{"event":"a.one","n":4}',
      ].join('\n'),
    });
    expect(await collect(projectDir, '"a.one"')).toEqual([
      { event: 'a.one', n: 1 },
      { event: 'a.one', n: 4 },
    ]);
  });

  it('reads no event from a missing log, a symlink or a FIFO planted in its place', async () => {
    const missing = await tempProject({});
    expect(await collect(missing, '"a')).toEqual([]);
    expect(await collect(path.join(missing, 'no-such-project'), '"a')).toEqual([]);

    const linked = await tempProject({ 'elsewhere.jsonl': '{"event":"a.one"}\n' });
    await mkdir(path.join(linked, '.agent/runs/r1'), { recursive: true });
    await symlink(path.join(linked, 'elsewhere.jsonl'), path.join(linked, '.agent/runs/r1/events.jsonl'));
    expect(await collect(linked, '"a')).toEqual([]);

    const fifo = await tempProject({});
    await mkdir(path.join(fifo, '.agent/runs/r1'), { recursive: true });
    execFileSync('mkfifo', [path.join(fifo, '.agent/runs/r1/events.jsonl')]);
    // Opened O_NONBLOCK and judged by fstat: no writer ever comes, and the read must not wait for one.
    expect(await collect(fifo, '"a')).toEqual([]);
  });

  it('reads no event from a folder where the log belongs', async () => {
    const projectDir = await tempProject({});
    await mkdir(path.join(projectDir, '.agent/runs/r1/events.jsonl'), { recursive: true });
    await writeFile(path.join(projectDir, '.agent/runs/r1/events.jsonl/x'), '{"event":"a.one"}\n');
    expect(await collect(projectDir, '"a')).toEqual([]);
  });

  it('reads no event through a run folder that is a symlink to an outside folder', async () => {
    const outside = await tempProject({ 'events.jsonl': '{"event":"a.one"}\n' });
    const projectDir = await tempProject({});
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(outside, path.join(projectDir, '.agent/runs/r1'));
    expect(await collect(projectDir, '"a')).toEqual([]);
  });

  it("reads a project's memory store", async () => {
    const project = openProject(await tempProject({}), { store: createMemoryStore() });
    await project.store.append(runEventsPath(runId), '{"event":"a.one","n":1}\n{"event":"b.two"}\n');
    expect(await collect(project, '"a.one"')).toEqual([{ event: 'a.one', n: 1 }]);
  });

  it('reads a log of many chunks line by line, a line and a character across a chunk edge included', async () => {
    // Lines of 1000 bytes and more, with a 3-byte character: some straddle the 64 KiB chunks the reader reads.
    const lines = Array.from({ length: 300 }, (_, n) =>
      JSON.stringify({ event: n % 2 === 0 ? 'a.one' : 'b.two', n, pad: '€'.repeat(300 + (n % 7)) }),
    );
    const projectDir = await tempProject({ '.agent/runs/r1/events.jsonl': `${lines.join('\n')}\n` });
    const events = await collect(projectDir, '"a.one"');
    expect(events.map((event) => event['n'])).toEqual(Array.from({ length: 150 }, (_, n) => n * 2));
    expect(events.every((event) => String(event['pad']).replaceAll('€', '') === '')).toBe(true);
  });
});
