/** A step's place in time, as far as it is known, and (for keeping its executions in one row) its id. */
export interface TimedStep {
  readonly id?: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
}

/**
 * Each step's 0-based timeline row, assigned greedily in start order: a step goes to the lane of the previous
 * execution of its id when that one has ended by its start (a fix re-ask continues its first attempt's row),
 * else to the first lane whose last step ended by its start, so steps that overlap get different lanes; a step
 * without times is in lane 0, and one that started but has not finished keeps its lane to itself.
 */
export function assignLanes(steps: readonly TimedStep[]): number[] {
  const laneEnds: number[] = [];
  const laneOfId = new Map<string, number>();
  const order = steps
    .map((step, index) => ({ index, start: instant(step.startedAt) }))
    .filter((entry): entry is { index: number; start: number } => entry.start !== null)
    .sort((a, b) => a.start - b.start || a.index - b.index);
  const lanes = steps.map(() => 0);
  for (const { index, start } of order) {
    const step = steps[index];
    // A step still running holds its lane: nothing after it may share the row.
    const end = Math.max(start, instant(step?.finishedAt ?? null) ?? Infinity);
    const previous = step?.id === undefined ? undefined : laneOfId.get(step.id);
    let lane =
      previous !== undefined && (laneEnds[previous] ?? Infinity) <= start
        ? previous
        : laneEnds.findIndex((laneEnd) => laneEnd <= start);
    if (lane === -1) lane = laneEnds.length;
    laneEnds[lane] = end;
    lanes[index] = lane;
    if (step?.id !== undefined) laneOfId.set(step.id, lane);
  }
  return lanes;
}

function instant(time: string | null): number | null {
  if (time === null) return null;
  const ms = Date.parse(time);
  return Number.isFinite(ms) ? ms : null;
}
