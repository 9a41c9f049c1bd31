import { contractSummary } from '../../contracts/index.js';
import type { ContractType } from '../../contracts/index.js';
import { FENCE, FILE_RULE, NO_FILES_RULE } from './builtin-prompt-rules.js';

/** What every contract node is told last: the one block form the runtime submits canonically, and its fields. */
function contractRule(type: ContractType): string {
  return (
    `End your reply with one fenced block opened with ${FENCE}json artifact=${type} that holds the ${type} ` +
    `artifact as one JSON object. The phase is done only when that artifact satisfies its contract; if it ` +
    `does not, you are asked again with the errors.\n` +
    // The prompt is a template: its braces are written doubled to stay literal.
    contractSummary(type).replaceAll('{', '{{').replaceAll('}', '}}')
  );
}

/** A prompt as a block scalar: the lines after the first indented to the scalar's depth, blank lines empty. */
function prompt(...paragraphs: readonly string[]): string {
  return paragraphs.join('\n\n').replace(/\n(?=.)/g, '\n      ');
}

const GOAL = 'The goal of this run:\n\n{goal}';

/**
 * The built-in `ralph` graph (seed 004): product spec, plan decision, development, review, fix, a smoke test
 * that runs real commands, and the commit message, each phase with its artifact contract, under budgets.
 */
export const RALPH_GRAPH_YAML = `name: ralph
version: "1"
description: >-
  Ralph's loop with artifact contracts: product spec, plan decision, development, review, fix, smoke test
  and commit message. A phase is done only when its artifact satisfies its contract; the run ends in one
  terminal state (done, blocked, budget_exceeded, regression) that names the artifact to read.
inputs: [goal]
budgets:
  max_minutes: 30
  max_agent_calls: 20
  max_fix_attempts: 2
nodes:
  - id: product_spec
    type: agent_task
    agent: planner
    contract: product_spec
    prompt: |
      ${prompt(GOAL, 'Write the product spec: name the goals, number the requirements (R1, R2 ...) and list acceptance checks that a test can run.', NO_FILES_RULE, contractRule('product_spec'))}
    output_path: docs/{run_id}/product_spec.md
  - id: plan
    type: agent_task
    agent: planner
    contract: planning_analysis_decision
    depends_on: [product_spec]
    prompt: |
      ${prompt(GOAL, 'Judge the product spec below as a plan: can it be built and tested as written? Decide accept, revise or reject, and say why.', '{product_spec.output}', NO_FILES_RULE, contractRule('planning_analysis_decision'))}
    output_path: docs/{run_id}/plan.md
  - id: develop
    type: agent_task
    agent: builder
    contract: development_result
    depends_on: [plan]
    prompt: |
      ${prompt(GOAL, 'Build what the spec asks for, with tests that check every acceptance line; the tests must run with node --test.', '{product_spec.output}', 'The plan decision:', '{plan.output}', FILE_RULE, contractRule('development_result'))}
    output_path: docs/{run_id}/develop.md
  - id: review
    type: agent_task
    agent: reviewer
    contract: issues
    depends_on: [develop]
    prompt: |
      ${prompt(GOAL, 'Review the development below against the spec. Report every issue with a severity; use blocker only when development cannot go on without a decision that the spec does not make.', '{product_spec.output}', '{develop.output}', NO_FILES_RULE, contractRule('issues'))}
    output_path: docs/{run_id}/review.md
  - id: fix
    type: agent_task
    agent: builder
    contract: fix_result
    depends_on: [review]
    prompt: |
      ${prompt(GOAL, 'Fix the issues of this review, rewriting whole files, and list the ids you fixed.', '{review.output}', FILE_RULE, contractRule('fix_result'))}
    output_path: docs/{run_id}/fix.md
  - id: smoke
    type: command
    contract: smoke_test_result
    depends_on: [fix]
    commands:
      - [node, --test, workspace/test/]
    timeout_ms: 120000
    output_path: docs/{run_id}/smoke.md
  - id: commit
    type: agent_task
    agent: writer
    contract: commit_message
    depends_on: [smoke]
    prompt: |
      ${prompt(GOAL, 'Write the Conventional Commits message for the change below; the smoke test passed.', '{develop.output}', '{fix.output}', NO_FILES_RULE, contractRule('commit_message'))}
    output_path: docs/{run_id}/commit.md
`;
