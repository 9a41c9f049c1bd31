import { describe, expect, it } from 'vitest';
import { closestMatch } from '../../src/config/closest-match.js';

describe('closestMatch', () => {
  it.each<[string, string[], string | undefined]>([
    ['enabeld', ['enabled', 'limits'], 'enabled'],
    ['failMode', ['fail_mode', 'durability'], 'fail_mode'],
    ['Fail-Mode', ['fail_mode'], 'fail_mode'],
    ['plna', ['plan', 'todo'], 'plan'],
    ['tem', ['single', 'team'], 'team'],
    ['abcd', ['abxy'], undefined],
    ['colour', ['enabled', 'limits'], undefined],
    ['anything', [], undefined],
    ['self-critique', ['single', 'self_critique', 'team'], 'self_critique'],
  ])('matches %j among %j to %j', (word, candidates, expected) => {
    expect(closestMatch(word, candidates)).toBe(expected);
  });

  it('prefers the nearest candidate', () => {
    expect(closestMatch('tasks', ['task', 'tasks_all'])).toBe('task');
  });
});
