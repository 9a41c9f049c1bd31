import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  TERMINAL_STATES,
  declareTerminal,
  readTerminal,
  terminalStateSchema,
} from '../../../src/contracts/index.js';
import type { TerminalState } from '../../../src/contracts/index.js';
import { memoryEventLog } from '../../../src/events/index.js';
import { parseRunId } from '../../../src/project/index.js';
import { openConfinedRoot } from '../../../src/workspace/index.js';
import { tempProject } from '../../helpers/temp-project.js';

const runId = parseRunId('run-1');
const terminal = (state: TerminalState['state']): TerminalState => ({
  state,
  artifact: '.agent/artifacts/run-1/issues.json',
  reason: state === 'done' ? 'every contract satisfied' : '1 blocker issue: B1',
  at: '2026-11-21T06:00:00.000Z',
});

describe('declareTerminal and readTerminal', () => {
  it.each(TERMINAL_STATES)(
    'writes %s to terminal.json, emits run.terminal, and reads it back',
    async (state) => {
      const projectDir = await tempProject({ '.agent/runs/run-1/events.jsonl': '' });
      const root = await openConfinedRoot(projectDir);
      const events = memoryEventLog({ run_id: 'run-1' });
      try {
        expect(
          await declareTerminal(projectDir, runId, events, terminal(state), { durability: 'none' }),
        ).toEqual(terminal(state));
      } finally {
        await root.close();
      }
      const file = path.join(projectDir, '.agent/runs/run-1/terminal.json');
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual(terminal(state));
      expect(await readTerminal(projectDir, runId)).toEqual(terminal(state));
      expect(events.lines).toEqual([
        expect.objectContaining({
          event: 'run.terminal',
          level: state === 'done' ? 'INFO' : 'WARNING',
          ...terminal(state),
        }),
      ]);
    },
  );

  it('writes the reason redacted when it quotes a secret', async () => {
    const token = 'ghp_' + 'EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR';
    const projectDir = await tempProject({ '.agent/runs/run-1/events.jsonl': '' });
    const root = await openConfinedRoot(projectDir);
    try {
      const declared = { ...terminal('blocked'), reason: `agent failed: ${token}` };
      await declareTerminal(projectDir, runId, memoryEventLog(), declared, { durability: 'none' });
    } finally {
      await root.close();
    }
    const text = await readFile(path.join(projectDir, '.agent/runs/run-1/terminal.json'), 'utf8');
    expect(text).not.toContain(token);
    expect(await readTerminal(projectDir, runId)).toMatchObject({ reason: 'agent failed: [REDACTED]' });
  });

  it('reads nothing for a run that has not ended, and nothing from a file that is not a terminal state', async () => {
    const projectDir = await tempProject({ '.agent/runs/run-1/events.jsonl': '' });
    expect(await readTerminal(projectDir, runId)).toBeUndefined();
    await writeFile(path.join(projectDir, '.agent/runs/run-1/terminal.json'), '{"state":"finished"}');
    expect(await readTerminal(projectDir, runId)).toBeUndefined();
  });

  it('refuses a terminal state outside the schema before writing anything', async () => {
    const projectDir = await tempProject({ '.agent/runs/run-1/events.jsonl': '' });
    const root = await openConfinedRoot(projectDir);
    const events = memoryEventLog();
    try {
      await expect(
        declareTerminal(projectDir, runId, events, {
          ...terminal('done'),
          state: 'finished',
        } as unknown as TerminalState),
      ).rejects.toThrow();
      await expect(
        declareTerminal(projectDir, runId, events, { ...terminal('done'), at: 'this morning' }),
      ).rejects.toThrow();
    } finally {
      await root.close();
    }
    expect(events.lines).toEqual([]);
    expect(await readTerminal(projectDir, runId)).toBeUndefined();
  });

  it('refuses terminal.json through a symlink planted at the run folder, writing nothing outside', async () => {
    const projectDir = await tempProject({ 'elsewhere/keep.txt': 'x' });
    await mkdir(path.join(projectDir, '.agent/runs'), { recursive: true });
    await symlink(path.join(projectDir, 'elsewhere'), path.join(projectDir, '.agent/runs/run-1'));
    const root = await openConfinedRoot(projectDir);
    const events = memoryEventLog();
    try {
      await expect(declareTerminal(projectDir, runId, events, terminal('blocked'))).rejects.toThrow(
        /terminal\.json was not written/,
      );
    } finally {
      await root.close();
    }
    await expect(readFile(path.join(projectDir, 'elsewhere/terminal.json'))).rejects.toThrow();
    expect(events.lines).toEqual([]);
  });

  it('keeps the schema closed and the artifact a non-empty path or null', () => {
    expect(terminalStateSchema.safeParse({ ...terminal('done'), extra: 1 }).success).toBe(false);
    expect(terminalStateSchema.safeParse({ ...terminal('done'), artifact: '' }).success).toBe(false);
    expect(terminalStateSchema.safeParse({ ...terminal('done'), artifact: null }).success).toBe(true);
  });
});
