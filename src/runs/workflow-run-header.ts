import type * as Yaml from 'yaml';
import { MAX_CONFIG_FILE_BYTES } from '../config/index.js';
import { lazyModule, runStatePath } from '../project/index.js';
import type { RunId } from '../project/index.js';
import { usingProject } from '../store/index.js';
import type { ProjectRef, ProjectStore } from '../store/index.js';
import { workflowStateHeaderSchema } from './workflow-state-schema.js';
import { workflowDefinitionPath } from './workflow-state-paths.js';

/** yaml loads when a pinned definition is first counted: `runs --help` never loads it (D76). */
const yaml = lazyModule<typeof Yaml>('yaml');

/** What `runs` shows of a workflow run: its workflow, status, steps done (of how many) and times. */
export interface WorkflowRunHeader {
  readonly workflow: string;
  readonly status: 'running' | 'completed' | 'failed' | 'aborted';
  /** The machine that started the run; absent in runs started before runs recorded their host. */
  readonly host?: string;
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
  // Only the header's fields are checked: the engine's whole schema is the judge of the rest.
  const parsed = workflowStateHeaderSchema.safeParse(value);
  if (!parsed.success) return null;
  const state = parsed.data;
  const stepsTotal = await pinnedStepCount(store, runId);
  return {
    workflow: state.workflow,
    status: state.status === 'complete' ? 'completed' : state.status,
    ...(state.host === undefined ? {} : { host: state.host }),
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
    const bytes = await store.read(workflowDefinitionPath(runId), { maxBytes: MAX_CONFIG_FILE_BYTES });
    const text = bytes === undefined ? undefined : new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    const definition: unknown = text === undefined ? undefined : yaml().parse(text);
    const steps = (definition as { steps?: unknown } | null | undefined)?.steps;
    return Array.isArray(steps) ? steps.length : 0;
  } catch {
    return 0;
  }
}

/**
 * Which engine wrote a run's state.json text: the workflow engine's carries `"kind": "workflow"`, the graph
 * runtime's has no kind. Judged loosely, so a corrupt state still says whose it is and its own parser names
 * the problem.
 */
export function stateKindOf(text: string): 'graph' | 'workflow' {
  try {
    const value: unknown = JSON.parse(text);
    const isWorkflow =
      typeof value === 'object' && value !== null && (value as { kind?: unknown }).kind === 'workflow';
    return isWorkflow ? 'workflow' : 'graph';
  } catch {
    return /"kind"\s*:\s*"workflow"/.test(text) ? 'workflow' : 'graph';
  }
}
