import path from 'node:path';
import { z } from 'zod';
import { runStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { readRegularFile } from '../../workspace/index.js';

// The few fields of a workflow's state.json that `runs` lists. The runtime may not import the workflow
// engine (same tier), so it reads them here, leniently: the engine's own schema is the judge of the rest.
const workflowStateHeader = z.object({
  kind: z.literal('workflow'),
  workflow: z.string().min(1),
  status: z.enum(['running', 'complete', 'failed', 'aborted']),
  started_at: z.string(),
  updated_at: z.string(),
  step_index: z.number().int().nonnegative(),
});

/** What `runs` shows of a workflow run: its workflow, status, steps done and times. */
export interface WorkflowRunHeader {
  readonly workflow: string;
  readonly status: 'running' | 'completed' | 'failed' | 'aborted';
  readonly stepsDone: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The header of a workflow run's state.json, or null when the run's state is not a workflow's. */
export async function readWorkflowRunHeader(
  projectDir: string,
  runId: RunId,
): Promise<WorkflowRunHeader | null> {
  let value: unknown;
  try {
    value = JSON.parse(await readRegularFile(path.join(projectDir, runStatePath(runId)), 'utf8'));
  } catch {
    return null;
  }
  const parsed = workflowStateHeader.safeParse(value);
  if (!parsed.success) return null;
  const state = parsed.data;
  return {
    workflow: state.workflow,
    status: state.status === 'complete' ? 'completed' : state.status,
    // A complete workflow has done every step; a running one the steps before its current one.
    stepsDone: state.step_index,
    created_at: state.started_at,
    updated_at: state.updated_at,
  };
}
