/** The step types: once (`action`), once per item of a list (`loop`), or `n` times (`ralph`). */
export const WORKFLOW_STEP_TYPES = ['action', 'loop', 'ralph'] as const;

/** How a step runs: one of {@link WORKFLOW_STEP_TYPES}. */
export type WorkflowStepType = (typeof WORKFLOW_STEP_TYPES)[number];
