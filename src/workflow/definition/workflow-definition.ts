import type { Budgets, ContractType } from '../../contracts/index.js';
import type { NodeId } from '../../project/index.js';
import type { WorkflowTemplate } from './workflow-template.js';

export { WORKFLOW_STEP_TYPES } from '../../runs/index.js';
export type { WorkflowStepType } from '../../runs/index.js';

/** The tool the agent is told to call when a step's `next_action` is not written. */
export const DEFAULT_NEXT_ACTION = 'workflow_advance';

interface StepFields {
  /** The step's id (the project's id pattern, so it can name the step's document). */
  readonly id: NodeId;
  /** The instructions as written (from `instructions` or its alias `instruction`). */
  readonly instructions: string;
  /** The instructions parsed once; render them with `assembleInstructions`. */
  readonly template: WorkflowTemplate;
  /** Name the step's submitted output is kept under, for later templates and the summary. */
  readonly saveAs?: string;
  /** The tool the agent is told to call next (`workflow_advance` unless written). */
  readonly nextAction: string;
  /** Finishing this step completes the workflow. */
  readonly complete: boolean;
  /** The sub-agent the step is delegated to (the SPAWN line). */
  readonly agent?: string;
  /** The agent is told to register the files it creates, and they are tracked. */
  readonly artefacts: boolean;
  /** The step cannot complete while observed writes are unregistered. */
  readonly requireRegistration: boolean;
  /** The artifact type each pass must submit before the step advances (spec contracts.md). */
  readonly contract?: ContractType;
}

/** A step run once. */
export interface ActionStep extends StepFields {
  readonly type: 'action';
}

/** A step run once per item of the list named by `over` (an input or an earlier `save_as`). */
export interface LoopStep extends StepFields {
  readonly type: 'loop';
  readonly over: string;
}

/** A step run `n` times with the same instructions. */
export interface RalphStep extends StepFields {
  readonly type: 'ralph';
  readonly n: number;
}

/** One step of a workflow, by its type. */
export type WorkflowStep = ActionStep | LoopStep | RalphStep;

/** A workflow as its YAML describes it, validated, before the loader adds where it came from. */
export interface WorkflowBody {
  readonly name: string;
  readonly version: string;
  readonly description: string;
  /** Names required at `workflow_start`, written `{name}` in templates. */
  readonly inputs: readonly string[];
  readonly steps: readonly WorkflowStep[];
  /** The run's budgets (`budgets:`); an absent one is unlimited (fix attempts: 2). */
  readonly budgets: Budgets;
}

/** A loaded workflow definition: the body plus the text it came from, pinned by its hash. */
export interface WorkflowDefinition extends WorkflowBody {
  /** `sha256Hex` of the text: the run pins it so an edited definition never silently applies. */
  readonly hash: string;
  /** The YAML text as read, so a run can store the copy it pinned. */
  readonly text: string;
  /** The file it was read from, or `builtin:<name>`. */
  readonly source: string;
}
