import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { recordFailureEvents } from '../../../src/artifacts/index.js';
import type { RecordFailure } from '../../../src/artifacts/index.js';
import { openRunEventLog } from '../../../src/events/index.js';
import { parseNodeId, parseRunId, runEventsPath } from '../../../src/project/index.js';
import { createMemoryStore, openProject } from '../../../src/store/index.js';
import type { Project } from '../../../src/store/index.js';
import { tempProject } from '../../helpers/temp-project.js';

// The one way a run's writers report a recording that failed: an artifacts.error event, never a throw.

const RUN = parseRunId('r1');
const KEY = runEventsPath(RUN);

async function eventsOf(project: Project): Promise<Record<string, unknown>[]> {
  const text = (await project.store.readText(KEY)) ?? '';
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const failure = (message: string, nodeId?: string): RecordFailure =>
  nodeId === undefined ? { message } : { message, nodeId: parseNodeId(nodeId) };

describe('recordFailureEvents', () => {
  it('writes into an open event log at once, naming the failure’s node or else the default one', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    const log = await openRunEventLog(project, RUN, { run_id: RUN });
    const events = recordFailureEvents(log, { nodeId: parseNodeId('step'), messageSuffix: ' (goes on)' });
    events.report(failure('lost a.ts', 'n1'));
    events.report(failure('lost the close'));
    // Written synchronously: the lines are in the store before anything is awaited.
    expect(await eventsOf(project)).toMatchObject([
      { level: 'ERROR', event: 'artifacts.error', run_id: 'r1', node_id: 'n1', code: 'record_failed' },
      { event: 'artifacts.error', node_id: 'step', message: 'lost the close (goes on)' },
    ]);
    expect((await eventsOf(project))[0]?.message).toBe('lost a.ts (goes on)');
    await events.close();
    await log.close();
  });

  it('tells onUnwritten when the log cannot take the event, and never throws', async () => {
    const project = openProject(await tempProject(), { store: createMemoryStore() });
    const log = await openRunEventLog(project, RUN);
    await log.close();
    const unwritten: string[] = [];
    const events = recordFailureEvents(log, { onUnwritten: ({ message }) => unwritten.push(message) });
    expect(() => {
      events.report(failure('lost b.ts'));
    }).not.toThrow();
    expect(unwritten).toEqual(['lost b.ts']);
  });

  it('opens the run’s events.jsonl on the first failure only, and writes the events in order', async () => {
    const dir = await tempProject();
    const project = openProject(dir, { store: createMemoryStore() });
    const events = recordFailureEvents({ project, runId: RUN });
    expect(await project.store.info(KEY)).toBeUndefined();
    for (const name of ['a', 'b', 'c']) events.report(failure(`lost ${name}.ts`, 'n1'));
    await events.close();
    expect((await eventsOf(project)).map((event) => [event.run_id, event.message])).toEqual([
      ['r1', 'lost a.ts'],
      ['r1', 'lost b.ts'],
      ['r1', 'lost c.ts'],
    ]);
    // A memory store: nothing on disk.
    expect(await readdir(dir)).toEqual([]);
    const quiet = recordFailureEvents({ project: openProject(dir), runId: RUN });
    await quiet.close();
    expect(await readdir(dir)).toEqual([]);
  });

  it('tells onUnwritten of every failure when the run’s log cannot be opened (a file where its folder goes)', async () => {
    const dir = await tempProject();
    await mkdir(path.join(dir, '.agent/runs'), { recursive: true });
    await writeFile(path.join(dir, '.agent/runs/r1'), 'not a folder');
    const unwritten: string[] = [];
    const events = recordFailureEvents(
      { project: dir, runId: RUN },
      { onUnwritten: ({ message }) => unwritten.push(message) },
    );
    events.report(failure('lost a.ts'));
    events.report(failure('lost b.ts'));
    await events.close();
    expect(unwritten).toEqual(['lost a.ts', 'lost b.ts']);
  });
});
