import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempProject } from '../helpers/temp-project.js';
import { connectServer, textOf } from './mcp-test-client.js';

const HOST = 'ARTIFACT_INGEST_HOST';
const startArgs = { workflow: 'chain_of_thought', inputs: { problem: 'p' }, run_id: 'm1' };

describe('workflow_start and the host', () => {
  it("records the server environment's ARTIFACT_INGEST_HOST in the run's state", async () => {
    const projectDir = await tempProject();
    const { call } = await connectServer(projectDir, { env: { [HOST]: 'agent-box' } });
    const started = await call('workflow_start', startArgs);
    expect(started.isError, textOf(started)).toBeUndefined();
    const state = JSON.parse(await readFile(path.join(projectDir, '.agent/runs/m1/state.json'), 'utf8')) as {
      host?: string;
    };
    expect(state.host).toBe('agent-box');
  });

  it('answers an unprintable ARTIFACT_INGEST_HOST with an error naming it, and starts nothing', async () => {
    const projectDir = await tempProject();
    const { call, logs } = await connectServer(projectDir, { env: { [HOST]: 'agent\u001bbox' } });
    const refused = await call('workflow_start', startArgs);
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain(
      'ARTIFACT_INGEST_HOST: holds a control or invisible character (U+001B, character 6)',
    );
    // An expected refusal, not a crash: nothing in the server log.
    expect(logs).toEqual([]);
    expect(existsSync(path.join(projectDir, '.agent'))).toBe(false);
  });
});
