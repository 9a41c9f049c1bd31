import { appendFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { submitArtifact } from '../../../src/contracts/index.js';
import { parseRunId } from '../../../src/project/index.js';
import {
  eventsOffset,
  readAttemptSubmissions,
} from '../../../src/runtime/run/node/read-attempt-submissions.js';
import { tempProject } from '../../helpers/temp-project.js';
import { BLOCKER_ISSUES, DEVELOPMENT_RESULT } from './fixtures/contract-fixtures.js';

const runId = parseRunId('r');

async function submitAs(projectDir: string, taskId: string, type: string, payload: unknown): Promise<void> {
  const outcome = await submitArtifact({
    projectDir,
    runId,
    taskId,
    agentId: 'cli',
    type,
    payload,
    durability: 'none',
  });
  if (!outcome.ok) throw new Error(outcome.message);
}

describe('readAttemptSubmissions', () => {
  it("reads only this node's submissions made since the attempt began, each type's latest", async () => {
    const projectDir = await tempProject({ '.agent/runs/r/.keep': '' });
    await submitAs(projectDir, 'develop', 'issues', { issues: [] });
    const offset = await eventsOffset(projectDir, runId);
    expect(offset).toBeGreaterThan(0);
    await submitAs(projectDir, 'develop', 'development_result', {
      ...DEVELOPMENT_RESULT,
      outcome: 'partial',
    });
    await submitAs(projectDir, 'other', 'issues', BLOCKER_ISSUES);
    await submitAs(projectDir, 'develop', 'development_result', DEVELOPMENT_RESULT);
    // A torn line and garbage do not stop the reading.
    await appendFile(
      path.join(projectDir, '.agent/runs/r/events.jsonl'),
      'not json\n{"event":"artifact.submitted"',
    );

    const submissions = await readAttemptSubmissions(projectDir, runId, 'develop', offset);

    expect(submissions).toEqual([
      {
        accepted: true,
        type: 'development_result',
        path: '.agent/artifacts/r/development_result.json',
        payload: DEVELOPMENT_RESULT,
      },
    ]);
  });

  it('reads a submission whose event was appended after a cut-off line', async () => {
    const projectDir = await tempProject({ '.agent/runs/r/.keep': '' });
    await submitAs(projectDir, 'develop', 'issues', { issues: [] });
    // A full disk stopped an event part-way; the next event must still be a line of its own.
    await appendFile(
      path.join(projectDir, '.agent/runs/r/events.jsonl'),
      '{"event":"artifact.submitted","ta',
    );
    await submitAs(projectDir, 'develop', 'development_result', DEVELOPMENT_RESULT);

    const submissions = await readAttemptSubmissions(projectDir, runId, 'develop', 0);

    expect(submissions.map((submission) => submission.type)).toEqual(['issues', 'development_result']);
  });

  it('finds nothing in a run without events', async () => {
    const projectDir = await tempProject({ '.agent/runs/r/.keep': '' });
    expect(await eventsOffset(projectDir, runId)).toBe(0);
    expect(await readAttemptSubmissions(projectDir, runId, 'develop', 0)).toEqual([]);
  });
});
