import { describe, expect, it } from 'vitest';
import { spanIdOf, traceIdOfRun } from '../../src/telemetry/index.js';

describe('the span tree ids of an export', () => {
  it('derives a valid trace id from the run id: the same for the same run, another for another run', () => {
    const id = traceIdOfRun('team-20261128T120000000Z');
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).not.toMatch(/^0+$/);
    expect(traceIdOfRun('team-20261128T120000000Z')).toBe(id);
    expect(traceIdOfRun('team-20261128T120000001Z')).not.toBe(id);
  });

  it('derives a span id from the run and the place in the tree, distinct across places and runs', () => {
    const places = [['run'], ['node', 'plan', '1'], ['node', 'plan', '2'], ['node', 'plan', '1', 'agent']];
    const ids = places.map((place) => spanIdOf('r1', place));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(places.length);
    expect(spanIdOf('r1', ['node', 'plan', '1'])).toBe(ids[1]);
    expect(spanIdOf('r2', ['node', 'plan', '1'])).not.toBe(ids[1]);
    // The place's parts are kept apart (ids hold no newline): ['a', 'b'] is not ['ab'].
    expect(spanIdOf('r1', ['ab'])).not.toBe(spanIdOf('r1', ['a', 'b']));
  });
});
