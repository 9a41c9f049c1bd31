import { FILE_RULE, NO_FILES_RULE } from './builtin-prompt-rules.js';
import { RALPH_GRAPH_YAML } from './ralph-graph.js';

/** Names of the graphs that ship with the runtime: the seed's three modes, and seed 004's contract loop. */
export const BUILTIN_GRAPH_NAMES = ['single', 'self_critique', 'team', 'ralph'] as const;

/** One of {@link BUILTIN_GRAPH_NAMES}. */
export type BuiltinGraphName = (typeof BUILTIN_GRAPH_NAMES)[number];

/** Whether `ref` names a built-in graph (otherwise it is a path to a YAML file). */
export function isBuiltinGraphName(ref: string): ref is BuiltinGraphName {
  return (BUILTIN_GRAPH_NAMES as readonly string[]).includes(ref);
}

// Both builders of the team graph start from the same brief: the goal, the plan and the manager's notes.
const BUILDER_BRIEF = [
  'You are a builder on the team. The goal:',
  '',
  '{goal}',
  '',
  'The plan:',
  '',
  '{plan.output}',
  '',
  "The project manager's notes:",
  '',
  '{pm.output}',
]
  .join('\n')
  // Indent the lines after the first to the block scalar's depth; blank lines stay empty, as YAML writes them.
  .replace(/\n(?=.)/g, '\n      ');

const single = `name: single
version: "1"
description: One agent reaches the goal in a single document.
mode: single
inputs: [goal]
nodes:
  - id: single_task
    type: agent_task
    agent: writer
    prompt: |
      You are a careful software engineer working alone. Your goal:

      {goal}

      Reply with one Markdown document that reaches the goal: a short explanation of the approach, then every
      file needed, then how to run and test the result.

      ${FILE_RULE}
    output_path: docs/single_{run_id}.md
`;

const selfCritique = `name: self_critique
version: "1"
description: A draft, two reviews of it, and a final version that applies them.
mode: self_critique
inputs: [goal]
nodes:
  - id: draft
    type: agent_task
    agent: writer
    prompt: |
      You are a software engineer writing a first complete draft. Your goal:

      {goal}

      Reply with one Markdown document: the approach in a few sentences, then every file needed, then how to run
      and test the result. Two reviewers will read it, so state your assumptions.

      ${FILE_RULE}
    output_path: docs/self_critique/draft_{run_id}.md
  - id: review_1
    type: agent_task
    agent: reviewer
    depends_on: [draft]
    prompt: |
      You review a draft for correctness. The goal was:

      {goal}

      The draft:

      {draft.output}

      List every bug, wrong assumption, unhandled error and failing edge case, the most serious first, each with
      the file, what goes wrong and the fix. Say plainly when something is correct.

      ${NO_FILES_RULE}
    output_path: docs/self_critique/reviews_{run_id}/review_1.md
  - id: review_2
    type: agent_task
    agent: reviewer
    depends_on: [draft]
    prompt: |
      You review a draft for completeness and clarity. The goal was:

      {goal}

      The draft:

      {draft.output}

      List what is missing (files, tests, documentation, configuration), what is unclear (names, structure,
      instructions) and what is more complicated than the goal needs, each with a concrete change.

      ${NO_FILES_RULE}
    output_path: docs/self_critique/reviews_{run_id}/review_2.md
  - id: final
    type: agent_task
    agent: writer
    depends_on: [draft, review_1, review_2]
    prompt: |
      You wrote the draft below and two reviewers answered. Your goal was:

      {goal}

      Your draft:

      {draft.output}

      Review 1 (correctness):

      {review_1.output}

      Review 2 (completeness and clarity):

      {review_2.output}

      Write the final version: apply every change you agree with, list the ones you reject and why, and write
      every file again in full, changed or not, so this document stands on its own.

      ${FILE_RULE}
    output_path: docs/self_critique/final_{run_id}.md
`;

const team = `name: team
version: "1"
description: Plan, split into tasks, implement them in parallel, audit, summarize.
mode: team
inputs: [goal]
nodes:
  - id: plan
    type: agent_task
    agent: planner
    prompt: |
      You are the planner of a small software team. The goal:

      {goal}

      Write the plan as Markdown: the approach in a few sentences; then exactly two tasks, "api" (the code that
      reaches the goal, with its tests) and "readme" (the user documentation), each with what done means; then
      the risks an auditor should check. If the project needs starting files (a package manifest, a
      configuration), include them.

      ${FILE_RULE}
    output_path: docs/team_plan_{run_id}.md
  - id: todo
    type: write_file
    depends_on: [plan]
    content: |
      # TODO

      Goal: {goal}

      Run: {run_id}

      {plan.output}
    output_path: docs/TODO.md
  - id: pm
    type: agent_task
    agent: planner
    depends_on: [plan]
    prompt: |
      You are the team's project manager. The goal:

      {goal}

      The plan:

      {plan.output}

      Write the project manager's notes as Markdown: for the tasks "api" and "readme", who does it (a builder),
      what done means, what each needs from the other, and a status table listing both as "todo".

      ${NO_FILES_RULE}
    output_path: docs/ProjectManager.md
  - id: task_api
    type: agent_task
    agent: builder
    depends_on: [plan, pm]
    prompt: |
      ${BUILDER_BRIEF}

      Your task is "api": write the code that reaches the goal, with its tests. Explain briefly what each file
      does, then end with the commands that run the tests.

      ${FILE_RULE}
    output_path: docs/tasks/api.md
  - id: task_readme
    type: agent_task
    agent: builder
    depends_on: [plan, pm]
    prompt: |
      ${BUILDER_BRIEF}

      Your task is "readme": write the user documentation as README.md (what it is, how to install, run and
      test it, a short example). Another builder writes the code at the same time; follow the plan's names.

      ${FILE_RULE}
    output_path: docs/tasks/readme.md
  - id: audit
    type: agent_task
    agent: auditor
    depends_on: [task_api, task_readme]
    prompt: |
      You audit the team's work for security and correctness. The goal:

      {goal}

      The plan, with the risks to check:

      {plan.output}

      The code (task "api"):

      {task_api.output}

      The documentation (task "readme"):

      {task_readme.output}

      List every finding with its severity (high, medium, low), the file, what is wrong and the fix; check
      input validation, secrets, injection, path handling and whether the documentation matches the code.
      End with a verdict: ready or not ready.

      ${NO_FILES_RULE}
    output_path: docs/audits/security.md
  - id: final
    type: agent_task
    agent: writer
    depends_on: [todo, task_api, task_readme, audit]
    prompt: |
      You write the closing summary of the team's run {run_id}. The goal:

      {goal}

      The code (task "api"):

      {task_api.output}

      The documentation (task "readme"):

      {task_readme.output}

      The audit:

      {audit.output}

      Summarize in Markdown: what was built (every file, one line each), how to run it and its tests, the
      audit's findings and which remain open, and the next steps.

      ${NO_FILES_RULE}
    output_path: docs/final.md
`;

/** The YAML text of each built-in graph, loaded with the same parser as graph files (source `builtin:<name>`). */
export const BUILTIN_GRAPH_YAML: Readonly<Record<BuiltinGraphName, string>> = Object.freeze({
  single,
  self_critique: selfCritique,
  team,
  ralph: RALPH_GRAPH_YAML,
});
