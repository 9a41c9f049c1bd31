import { describe, expect, it } from 'vitest';
import { parseNodeId, parseRunId } from '../../../src/project/index.js';
import { parseWorkflow } from '../../../src/workflow/index.js';
import type { WorkflowState } from '../../../src/workflow/index.js';
import {
  enterStep,
  nextPosition,
  passNodeId,
  stepDocumentPath,
  toTemplateValue,
} from '../../../src/workflow/engine/step-position.js';
import { WorkflowError } from '../../../src/workflow/engine/workflow-error.js';

const definition = parseWorkflow(
  [
    'name: positions',
    'version: "1"',
    'inputs: [items, empty]',
    'steps:',
    '  - { id: first, instructions: go, save_as: list }',
    '  - { id: none, type: loop, over: empty, instructions: "{task}" }',
    '  - { id: each, type: loop, over: list, instructions: "{task}" }',
    '  - { id: again, type: ralph, n: 2, instructions: "{iteration}" }',
    '  - { id: last, instructions: done }',
    '',
  ].join('\n'),
  'positions.yaml',
);

const known = { inputs: { items: ['x'], empty: [] }, outputs: { list: '- a\n- b' }, tasks: {} };

function stateAt(fields: Partial<WorkflowState>): WorkflowState {
  return {
    kind: 'workflow',
    version: 1,
    run_id: parseRunId('r'),
    workflow: 'positions',
    definition_hash: definition.hash,
    definition_path: '.agent/runs/r/workflow.yaml',
    inputs: known.inputs,
    status: 'running',
    step: parseNodeId('first'),
    stepType: 'action',
    step_index: 0,
    step_started_at: '2026-01-01T00:00:00.000Z',
    tasks: {},
    outputs: known.outputs,
    artefacts: [],
    step_artefacts: [],
    agent_calls: 0,
    started_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    revision: 0,
    ...fields,
  };
}

describe('step positions', () => {
  it('enters a loop over an empty list by skipping to the next step with a pass, fixing its list', () => {
    expect(enterStep(definition, 1, known)).toEqual({
      step_index: 2,
      step: 'each',
      stepType: 'loop',
      task: { index: 1, total: 2, value: 'a' },
      tasks: { each: ['a', 'b'] },
    });
  });

  it.each([
    [
      'the next task of a loop',
      {
        step: parseNodeId('each'),
        stepType: 'loop',
        step_index: 2,
        task: { index: 1, total: 2, value: 'a' },
        tasks: { each: ['a', 'b'] },
      },
      { step: 'each', task: { index: 2, total: 2, value: 'b' } },
    ],
    [
      "the step after a loop's last task",
      {
        step: parseNodeId('each'),
        stepType: 'loop',
        step_index: 2,
        task: { index: 2, total: 2, value: 'b' },
        tasks: { each: ['a', 'b'] },
      },
      { step: 'again', ralphIteration: 1 },
    ],
    [
      'the next ralph iteration',
      { step: parseNodeId('again'), stepType: 'ralph', step_index: 3, ralphIteration: 1 },
      { step: 'again', ralphIteration: 2 },
    ],
    [
      'the step after the last iteration',
      { step: parseNodeId('again'), stepType: 'ralph', step_index: 3, ralphIteration: 2 },
      { step: 'last', stepType: 'action' },
    ],
  ] as const)('moves to %s', (_name, fields, expected) => {
    const state = stateAt(fields);
    expect(nextPosition(definition, state, state)).toMatchObject(expected);
  });

  it('ends after the last step', () => {
    const state = stateAt({ step: parseNodeId('last'), step_index: 4 });
    expect(nextPosition(definition, state, state)).toBe('end');
  });

  it('refuses a loop whose over value is not a list (step_blocked)', () => {
    const blocked = () => enterStep(definition, 2, { ...known, outputs: {}, inputs: {} });
    expect(blocked).toThrow(WorkflowError);
    expect(blocked).toThrow(/step each loops over list, which has no value/);
  });

  it('names pass documents and pass node ids', () => {
    expect(stepDocumentPath(parseRunId('r'), parseNodeId('each'), 2)).toBe('docs/r/each-2.md');
    expect(stepDocumentPath(parseRunId('r'), parseNodeId('first'), undefined)).toBe('docs/r/first.md');
    expect(passNodeId(parseNodeId('each'), 2)).toBe('each-2');
    const long = parseNodeId('s'.repeat(128));
    expect(passNodeId(long, 2)).toBe(long);
  });

  it('reads null in state JSON as empty text', () => {
    expect(toTemplateValue({ a: null, b: [1, null] })).toEqual({ a: '', b: [1, ''] });
  });
});
