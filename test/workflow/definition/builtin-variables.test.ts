import { describe, expect, it } from 'vitest';
import {
  builtinsForStepType,
  builtinValues,
  loopTaskValue,
} from '../../../src/workflow/definition/builtin-variables.js';

describe('builtinsForStepType', () => {
  it.each([
    ['action', ['run_id', 'step', 'artefacts']],
    ['loop', ['run_id', 'step', 'artefacts', 'task']],
    ['ralph', ['run_id', 'step', 'artefacts', 'iteration', 'n']],
  ] as const)('gives a %s step %j', (type, names) => {
    expect(builtinsForStepType(type)).toEqual(names);
  });
});

describe('builtinValues', () => {
  it('fills in a ralph pass', () => {
    expect(
      builtinValues({ type: 'ralph', runId: 'r1', step: 'polish', artefacts: ['a.md'], iteration: 2, n: 3 }),
    ).toEqual({
      run_id: 'r1',
      step: 'polish',
      artefacts: ['a.md'],
      iteration: 2,
      n: 3,
    });
  });

  it('fills in a loop pass with the task, its index and the total', () => {
    expect(
      builtinValues({
        type: 'loop',
        runId: 'r1',
        step: 'implement',
        artefacts: [],
        task: 'api',
        index: 1,
        total: 2,
      }),
    ).toEqual({ run_id: 'r1', step: 'implement', artefacts: [], task: { text: 'api', index: 1, total: 2 } });
  });
});

describe('loopTaskValue', () => {
  it.each([
    ['a text item', 'api', { text: 'api', index: 3, total: 4 }],
    [
      'a mapping item, keeping its fields',
      { title: 'API', text: 'do it' },
      { title: 'API', text: 'do it', index: 3, total: 4 },
    ],
    [
      'a mapping item without text, shown as JSON',
      { title: 'API' },
      { title: 'API', text: '{"title":"API"}', index: 3, total: 4 },
    ],
  ] as const)('reads %s', (_, item, expected) => {
    expect(loopTaskValue(item, 3, 4)).toEqual(expected);
  });
});
