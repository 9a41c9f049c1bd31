import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assembleInstructions } from '../../../src/workflow/definition/assemble-instructions.js';
import { builtinValues } from '../../../src/workflow/definition/builtin-variables.js';
import {
  BUILTIN_WORKFLOW_NAMES,
  BUILTIN_WORKFLOW_YAML,
} from '../../../src/workflow/definition/builtin-workflows.js';
import { parseWorkflow } from '../../../src/workflow/definition/load-workflow.js';
import type { WorkflowStep } from '../../../src/workflow/definition/workflow-definition.js';

function builtin(name: (typeof BUILTIN_WORKFLOW_NAMES)[number]) {
  return parseWorkflow(BUILTIN_WORKFLOW_YAML[name], `builtin:${name}`);
}

function step(name: (typeof BUILTIN_WORKFLOW_NAMES)[number], id: string): WorkflowStep {
  const found = builtin(name).steps.find((candidate) => candidate.id === id);
  if (found === undefined) throw new Error(`no step ${id}`);
  return found;
}

describe('built-in workflows', () => {
  it.each(BUILTIN_WORKFLOW_NAMES)('loads %s through the same validation as a project file', (name) => {
    expect(builtin(name).name).toBe(name);
  });

  it("chain_of_thought has seed 003's steps, outputs and completion", () => {
    const definition = builtin('chain_of_thought');
    expect(definition.inputs).toEqual(['problem']);
    expect(definition.steps.map((s) => [s.id, s.type, s.saveAs ?? null, s.complete])).toEqual([
      ['decompose', 'action', 'decomposition', false],
      ['analyze_first', 'action', 'analysis_1', false],
      ['synthesize', 'action', null, true],
    ]);
  });

  it("chain_of_thought's analysis step names the first sub-task of the decomposition", () => {
    const result = assembleInstructions(step('chain_of_thought', 'analyze_first'), {
      problem: 'p',
      decomposition: '1. parse\n2. check\n',
    });
    expect(result).toEqual({
      ok: true,
      text: 'Now analyze the first sub-task: parse\nProvide detailed approach and considerations.',
    });
  });

  it("feature-dev has the spec's scope, a plan that saves the tasks, the loop, the ralph and the completing review", () => {
    const definition = builtin('feature-dev');
    expect(definition.inputs).toEqual(['feature']);
    expect(definition.steps.map((s) => [s.id, s.type, s.artefacts, s.complete])).toEqual([
      ['scope', 'action', true, false],
      ['plan', 'action', true, false],
      ['implement', 'loop', true, false],
      ['polish', 'ralph', false, false],
      ['review', 'action', false, true],
    ]);
    expect(step('feature-dev', 'implement')).toMatchObject({
      over: 'tasks',
      agent: 'coder',
      requireRegistration: true,
    });
    expect(step('feature-dev', 'polish')).toMatchObject({ n: 3 });
  });

  it("feature-dev's review lists every artefact, one per line", () => {
    const values = builtinValues({
      type: 'action',
      runId: 'r1',
      step: 'review',
      artefacts: ['docs/scope.md', 'src/api.ts'],
    });
    expect(assembleInstructions(step('feature-dev', 'review'), values)).toEqual({
      ok: true,
      text: 'Review every change:\n- docs/scope.md\n- src/api.ts',
    });
  });

  it("feature-dev's ralph step counts its iterations", () => {
    const values = {
      scope: 'the scope',
      ...builtinValues({ type: 'ralph', runId: 'r1', step: 'polish', artefacts: [], iteration: 2, n: 3 }),
    };
    expect(assembleInstructions(step('feature-dev', 'polish'), values)).toEqual({
      ok: true,
      text: 'Iteration 2 of 3: improve the result of the scope.',
    });
  });

  it.each(BUILTIN_WORKFLOW_NAMES)('prints %s in full, verbatim, in docs/workflows.md', (name) => {
    const doc = readFileSync(path.resolve(import.meta.dirname, '../../../docs/workflows.md'), 'utf8');
    expect(doc).toContain(`\`\`\`yaml\n${BUILTIN_WORKFLOW_YAML[name]}\`\`\``);
  });
});
