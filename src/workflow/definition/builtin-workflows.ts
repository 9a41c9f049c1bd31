/** Names of the workflows that ship with the engine (seed 003's and seed 000's). */
export const BUILTIN_WORKFLOW_NAMES = ['chain_of_thought', 'feature-dev'] as const;

/** One of {@link BUILTIN_WORKFLOW_NAMES}. */
export type BuiltinWorkflowName = (typeof BUILTIN_WORKFLOW_NAMES)[number];

/** Whether `ref` names a built-in workflow. */
export function isBuiltinWorkflowName(ref: string): ref is BuiltinWorkflowName {
  return (BUILTIN_WORKFLOW_NAMES as readonly string[]).includes(ref);
}

// Seed 003's workflow. Its synthesize step iterated over "analyses", which no step saves; it iterates over
// the analysis that analyze_first saves instead, so the definition passes the load-time variable check.
const chainOfThought = `name: chain_of_thought
version: "1.0"
description: Multi-step reasoning with full model capacity
inputs: [problem]
steps:
  - id: decompose
    instruction: |
      Break down the problem: {problem}
      Consider all aspects and dependencies.
      List the sub-tasks needed, one per line, the first one first.
    save_as: decomposition
  - id: analyze_first
    instruction: |
      Now analyze the first sub-task: {decomposition[0]}
      Provide detailed approach and considerations.
    save_as: analysis_1
  - id: synthesize
    instruction: |
      Review your analysis of the sub-tasks:
      {foreach point in decomposition}
      - {point}
      {/foreach}

      {analysis_1}

      Provide integrated solution.
    complete: true
`;

// Seed 000's feature development workflow in the spec's shape; the plan step saves the task list the
// implement loop goes over (the spec's example names "tasks" without a step that saves it).
const featureDev = `name: feature-dev
version: "1"
description: Scope, plan, implement task by task, review
inputs: [feature]
steps:
  - id: scope
    type: action
    artefacts: true
    instructions: |
      Scope out {feature} and save the scope to a markdown file.
    save_as: scope
  - id: plan
    type: action
    artefacts: true
    instructions: |
      Write a detailed implementation plan for {feature}, following this scope:

      {scope}

      Save the plan to a file, then submit the plan's tasks as your output, one task per line.
    save_as: tasks
  - id: implement
    type: loop
    over: tasks
    agent: coder
    artefacts: true
    require_registration: true
    instructions: |
      Implement task {task.index} of {task.total}: {task}
  - id: polish
    type: ralph
    n: 3
    instructions: "Iteration {iteration} of {n}: improve the result of {scope}."
  - id: review
    type: action
    instructions: |
      Review every change:
      {foreach a in artefacts}
      - {a}
      {/foreach}
    complete: true
`;

/** The YAML text of each built-in workflow, loaded through the same validation as a project's. */
export const BUILTIN_WORKFLOW_YAML: Readonly<Record<BuiltinWorkflowName, string>> = Object.freeze({
  chain_of_thought: chainOfThought,
  'feature-dev': featureDev,
});
