/**
 * The counts of the MCP scenarios, each a pure look at a run's files: events lost on a kill, missing start
 * snapshots, lost updates and duplicate passes of racing servers, records holding an outside file's bytes.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';

/** One pass of a workflow step: the step's id and, for a loop or ralph step, its 1-based pass. */
export interface WorkflowPass {
  readonly step: string;
  readonly pass?: number;
}

/** A step of a workflow as the counts need it: its id, its type, and a ralph step's `n`. */
export interface ShapeStep {
  readonly id: string;
  readonly type: 'action' | 'loop' | 'ralph';
  readonly n?: number;
}

/** The fields of a workflow state.json the counts read (docs/workflow-state.md). */
interface StateView {
  readonly status?: unknown;
  readonly step_index?: unknown;
  readonly task?: { readonly index?: unknown };
  readonly ralphIteration?: unknown;
  readonly tasks?: Readonly<Record<string, unknown>>;
}

/**
 * The passes a workflow state says are done (every pass before its position, or all of them once complete) and,
 * while it runs, the pass it is in.
 */
export function passesOfState(
  state: unknown,
  shape: readonly ShapeStep[],
): { done: WorkflowPass[]; current?: WorkflowPass } {
  const view = (typeof state === 'object' && state !== null ? state : {}) as StateView;
  const complete = view.status === 'complete';
  const at = typeof view.step_index === 'number' ? view.step_index : 0;
  const here =
    typeof view.task?.index === 'number'
      ? view.task.index
      : typeof view.ralphIteration === 'number'
        ? view.ralphIteration
        : undefined;
  const done: WorkflowPass[] = [];
  let current: WorkflowPass | undefined;
  shape.forEach((step, index) => {
    if (complete || index < at) done.push(...passesOfStep(step, view.tasks?.[step.id]));
    else if (index === at && step.type === 'action') current = { step: step.id };
    else if (index === at) {
      // A loop or ralph step: the passes before the state's one are done; a stopped run's pass did start.
      const pass = here ?? 1;
      for (let earlier = 1; earlier < pass; earlier += 1) done.push({ step: step.id, pass: earlier });
      current = { step: step.id, pass };
    }
  });
  return current === undefined ? { done } : { done, current };
}

/** Every pass of a step: one for an action step, `n` for a ralph step, one per task of a loop step. */
function passesOfStep(step: ShapeStep, tasks: unknown): WorkflowPass[] {
  if (step.type === 'action') return [{ step: step.id }];
  const total = step.type === 'ralph' ? (step.n ?? 1) : Array.isArray(tasks) ? tasks.length : 0;
  return Array.from({ length: total }, (_, index) => ({ step: step.id, pass: index + 1 }));
}

/** `step` or `step#pass`: the key of a pass in the event index. */
function passKey(pass: WorkflowPass): string {
  return pass.pass === undefined ? pass.step : `${pass.step}#${String(pass.pass)}`;
}

/** How many times each pass has `step.started` and `step.completed` in an events.jsonl text. */
export function indexStepEvents(eventsText: string): {
  started: Map<string, number>;
  completed: Map<string, number>;
} {
  const started = new Map<string, number>();
  const completed = new Map<string, number>();
  for (const line of eventsText.split('\n')) {
    if (!line.includes('"step.')) continue;
    let event: { event?: unknown; step?: unknown; pass?: unknown };
    try {
      event = JSON.parse(line) as typeof event;
    } catch {
      continue;
    }
    if (typeof event.step !== 'string') continue;
    const key = passKey({
      step: event.step,
      ...(typeof event.pass === 'number' ? { pass: event.pass } : {}),
    });
    const into =
      event.event === 'step.started' ? started : event.event === 'step.completed' ? completed : undefined;
    into?.set(key, (into.get(key) ?? 0) + 1);
  }
  return { started, completed };
}

/**
 * Events lost: for every pass the state says is done, a missing `step.started` or `step.completed`, and for the
 * pass it is in, a missing `step.started` (each missing line counts once).
 */
export function countLostEvents(state: unknown, shape: readonly ShapeStep[], eventsText: string): number {
  const { done, current } = passesOfState(state, shape);
  const { started, completed } = indexStepEvents(eventsText);
  let lost = 0;
  for (const pass of done) {
    if (!started.has(passKey(pass))) lost += 1;
    if (!completed.has(passKey(pass))) lost += 1;
  }
  if (current !== undefined && !started.has(passKey(current))) lost += 1;
  return lost;
}

/** `.agent/runs/<run_id>/snapshots/<step>[-<pass>].json`: where the engine keeps a pass's start snapshot. */
export function snapshotFileOf(runId: string, pass: WorkflowPass): string {
  const name = pass.pass === undefined ? pass.step : `${pass.step}-${String(pass.pass)}`;
  return path.posix.join('.agent/runs', runId, 'snapshots', `${name}.json`);
}

/** Passes (done or current) of a run whose start snapshot file is missing. */
export async function countMissingSnapshots(
  projectDir: string,
  runId: string,
  passes: readonly WorkflowPass[],
): Promise<number> {
  let missing = 0;
  for (const pass of passes) {
    try {
      await stat(path.join(projectDir, snapshotFileOf(runId, pass)));
    } catch {
      missing += 1;
    }
  }
  return missing;
}

/**
 * Lost updates: outputs (found by a token each holds) that a server acknowledged to its client but that the
 * state did not keep among `saved` (a loop step's outputs, pass `i + 1` at index `i`), or that it kept without a
 * `step.completed` of their pass in the events.
 */
export function countLostUpdates(
  acknowledged: readonly string[],
  saved: readonly unknown[],
  step: string,
  eventsText: string,
): number {
  const { completed } = indexStepEvents(eventsText);
  let lost = 0;
  for (const token of acknowledged) {
    const index = saved.findIndex((output) => typeof output === 'string' && output.includes(token));
    if (index === -1 || !completed.has(passKey({ step, pass: index + 1 }))) lost += 1;
  }
  return lost;
}

/**
 * Duplicate passes: each extra `step.completed` of one pass, and each extra saved output holding a token that
 * an earlier saved output holds too (one advance applied twice).
 */
export function countDuplicatePasses(
  tokens: readonly string[],
  saved: readonly unknown[],
  eventsText: string,
): number {
  let duplicates = 0;
  for (const times of indexStepEvents(eventsText).completed.values()) duplicates += times - 1;
  for (const token of tokens) {
    const holding = saved.filter((output) => typeof output === 'string' && output.includes(token)).length;
    duplicates += Math.max(0, holding - 1);
  }
  return duplicates;
}

/** Records (artifacts.jsonl lines) whose content hash is one of `outsideHashes` (hex sha256): bytes read through a link. */
export function countOutsideBytes(recordsText: string, outsideHashes: ReadonlySet<string>): number {
  let outside = 0;
  for (const line of recordsText.split('\n')) {
    const match = /"contentHash":"sha256:([0-9a-f]{64})"/u.exec(line);
    if (match?.[1] !== undefined && outsideHashes.has(match[1])) outside += 1;
  }
  return outside;
}

/** Every run's artifacts.jsonl of a project, one text ('' when there are none). */
export async function readProjectRecords(projectDir: string): Promise<string> {
  const runs = path.join(projectDir, '.agent', 'runs');
  let ids: string[];
  try {
    ids = await readdir(runs);
  } catch {
    return '';
  }
  const texts: string[] = [];
  for (const id of ids) {
    try {
      texts.push(await readFile(path.join(runs, id, 'artifacts.jsonl'), 'utf8'));
    } catch {
      // A run without records (a workflow's first step) has no file.
    }
  }
  return texts.join('\n');
}
