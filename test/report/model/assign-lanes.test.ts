import { describe, expect, it } from 'vitest';
import { assignLanes } from '../../../src/report/model/assign-lanes.js';

const at = (second: number | null): string | null =>
  second === null ? null : new Date(Date.UTC(2026, 0, 1, 0, 0, second)).toISOString();
const step = (
  start: number | null,
  end: number | null,
): { startedAt: string | null; finishedAt: string | null } => ({
  startedAt: at(start),
  finishedAt: at(end),
});

describe('assignLanes', () => {
  it.each<[string, readonly [number | null, number | null][], number[]]>([
    [
      'one after another: one lane',
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
      [0, 0, 0],
    ],
    [
      'two at once: two lanes',
      [
        [0, 5],
        [0, 3],
      ],
      [0, 1],
    ],
    [
      'a lane freed is reused',
      [
        [0, 5],
        [0, 2],
        [3, 4],
      ],
      [0, 1, 1],
    ],
    [
      'three overlapping: three lanes',
      [
        [0, 9],
        [1, 9],
        [2, 9],
      ],
      [0, 1, 2],
    ],
    [
      'given out of start order',
      [
        [3, 4],
        [0, 5],
      ],
      [1, 0],
    ],
    [
      'not run: lane 0',
      [
        [0, 5],
        [null, null],
        [1, 2],
      ],
      [0, 0, 1],
    ],
    [
      'running (no end) is a point in time',
      [
        [0, null],
        [0, 2],
      ],
      [0, 1],
    ],
  ])('%s', (_, steps, lanes) => {
    expect(assignLanes(steps.map(([start, end]) => step(start, end)))).toEqual(lanes);
  });

  it.each<[string, readonly [string, number, number | null][], number[]]>([
    [
      "a fix re-ask keeps its first attempt's lane though a lower one is free",
      [
        ['b', 0, 2],
        ['a', 1, 3],
        ['a', 3, 5],
      ],
      [0, 1, 1],
    ],
    [
      'a running re-ask keeps it too',
      [
        ['b', 0, 2],
        ['a', 1, 3],
        ['a', 3, null],
      ],
      [0, 1, 1],
    ],
    [
      'its lane taken by then: the first free one',
      [
        ['a', 0, 2],
        ['c', 2, 9],
        ['a', 2, 4],
      ],
      [0, 0, 1],
    ],
    [
      'an execution overlapping the previous one of its id: another lane',
      [
        ['a', 0, 4],
        ['a', 2, 5],
      ],
      [0, 1],
    ],
  ])('%s', (_, steps, lanes) => {
    expect(assignLanes(steps.map(([id, start, end]) => ({ id, ...step(start, end) })))).toEqual(lanes);
  });
});
