import type * as Yaml from 'yaml';
import { z } from 'zod';
import { MAX_CONFIG_FILE_BYTES } from '../../config/index.js';
import { lazyModule, runDir, runStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { usingProject } from '../../store/index.js';
import type { ProjectRef, ProjectStore } from '../../store/index.js';

/** yaml loads when a pinned definition is first counted: `runs --help` never loads it (D76). */
const yaml = lazyModule<typeof Yaml>('yaml');

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

/** What `runs` shows of a workflow run: its workflow, status, steps done (of how many) and times. */
export interface WorkflowRunHeader {
  readonly workflow: string;
  readonly status: 'running' | 'completed' | 'failed' | 'aborted';
  readonly stepsDone: number;
  /** The steps of the run's pinned definition; 0 when it cannot be read. */
  readonly stepsTotal: number;
  readonly created_at: string;
  readonly updated_at: string;
}

/** The header of a workflow run's state.json, or null when the run's state is not a workflow's. */
export async function readWorkflowRunHeader(
  project: ProjectRef,
  runId: RunId,
): Promise<WorkflowRunHeader | null> {
  return usingProject(project, ({ store }) => readHeader(store, runId));
}

async function readHeader(store: ProjectStore, runId: RunId): Promise<WorkflowRunHeader | null> {
  let value: unknown;
  try {
    value = JSON.parse((await store.readText(runStatePath(runId))) ?? '');
  } catch {
    return null;
  }
  const parsed = workflowStateHeader.safeParse(value);
  if (!parsed.success) return null;
  const state = parsed.data;
  const stepsTotal = await pinnedStepCount(store, runId);
  return {
    workflow: state.workflow,
    status: state.status === 'complete' ? 'completed' : state.status,
    // A complete workflow has done every step (the engine leaves step_index on the last one); a running one
    // the steps before its current one.
    stepsDone: state.status === 'complete' && stepsTotal > 0 ? stepsTotal : state.step_index,
    stepsTotal,
    created_at: state.started_at,
    updated_at: state.updated_at,
  };
}

/**
 * The number of steps of the run's pinned definition (`.agent/runs/<run>/workflow.yaml`), read as the engine
 * reads it (never through a symlink, at most the definition size limit) and counted leniently: 0 when it is
 * missing, unreadable or has no list of steps.
 */
async function pinnedStepCount(store: ProjectStore, runId: RunId): Promise<number> {
  try {
    const bytes = await store.read(`${runDir(runId)}/workflow.yaml`, { maxBytes: MAX_CONFIG_FILE_BYTES });
    const text = bytes === undefined ? undefined : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const definition: unknown = text === undefined ? undefined : yaml().parse(text);
    const steps = (definition as { steps?: unknown } | null | undefined)?.steps;
    return Array.isArray(steps) ? steps.length : 0;
  } catch {
    return 0;
  }
}
