import type { RunTimeline } from '../../artifacts/index.js';
import { DEFAULT_MAX_FIX_ATTEMPTS } from '../../contracts/index.js';
import type { TerminalState } from '../../contracts/index.js';
import type { ReportRunHeader, ReportStep, ReportStepStatus } from './run-report.js';
import type { RunSource } from './read-run-source.js';
import { spanMs } from './draft-steps.js';

/** What the header is made of besides the state: the records' times, the terminal state, the concurrency. */
export interface HeaderFacts {
  readonly runId: string;
  readonly source: RunSource;
  readonly timeline: RunTimeline;
  readonly steps: readonly ReportStep[];
  readonly terminal: TerminalState | null;
  readonly concurrency: number | null;
  /** The ingest mode of an `ingest --run-id` run, from its first manifest. */
  readonly ingestMode: string | null;
  /** Whether the ingest was on, from the run's traces and manifests, for a run whose state does not say. */
  readonly ingestEnabled: boolean | null;
}

/** The run header from whichever state the run has; a run whose state is unreadable says `unreadable`. */
export function reportRunHeader(facts: HeaderFacts): ReportRunHeader {
  const { source, timeline, steps } = facts;
  const counts = countSteps(steps);
  const terminal =
    facts.terminal === null
      ? null
      : {
          state: facts.terminal.state,
          artifact: facts.terminal.artifact,
          reason: facts.terminal.reason,
          at: facts.terminal.at,
        };
  const common = { runId: facts.runId, terminal, counts, concurrency: facts.concurrency };
  if (source.kind === 'graph' && source.state !== null) {
    const state = source.state;
    const finishedAt = state.status === 'running' ? null : state.updated_at;
    const budgets = state.budgets;
    return {
      ...common,
      kind: 'graph',
      definition: { name: state.graph.name, hash: state.graph.hash, source: state.graph.source },
      mode: state.mode,
      status: state.status,
      startedAt: state.created_at,
      finishedAt,
      durationMs: spanMs(state.created_at, finishedAt),
      inputs: state.inputs,
      ingestEnabled: state.ingest_enabled,
      budgets:
        budgets === undefined
          ? null
          : {
              agentCalls: budgets.agent_calls,
              maxAgentCalls: budgets.max_agent_calls ?? null,
              minutes: budgets.minutes,
              maxMinutes: budgets.max_minutes ?? null,
              maxFixAttempts: budgets.max_fix_attempts,
              exceeded: budgets.exceeded ?? null,
            },
    };
  }
  if (source.kind === 'workflow' && source.state !== null) {
    const state = source.state;
    const finishedAt = state.finished_at ?? null;
    return {
      ...common,
      kind: 'workflow',
      definition: { name: state.workflow, hash: state.definition_hash, source: state.definition_path },
      mode: null,
      status: state.status,
      terminal: common.terminal ?? state.terminal ?? null,
      startedAt: state.started_at,
      finishedAt,
      durationMs: spanMs(state.started_at, finishedAt),
      inputs: Object.fromEntries(
        Object.entries(state.inputs).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      ),
      ingestEnabled: facts.ingestEnabled,
      budgets: {
        agentCalls: state.agent_calls,
        maxAgentCalls: source.budgets?.max_agent_calls ?? null,
        minutes: null,
        maxMinutes: source.budgets?.max_minutes ?? null,
        maxFixAttempts:
          source.budgets === null ? null : (source.budgets.max_fix_attempts ?? DEFAULT_MAX_FIX_ATTEMPTS),
        exceeded: null,
      },
    };
  }
  // No state to read: an `ingest --run-id` run, or a run whose state.json is unreadable.
  const startedAt = timeline.startedAt;
  const finishedAt = latest(steps.map((step) => step.finishedAt));
  return {
    ...common,
    kind: source.kind,
    definition:
      timeline.graph === null ? null : { name: timeline.graph.name, hash: timeline.graph.hash, source: null },
    mode: facts.ingestMode,
    status: source.kind === 'ingest' ? 'completed' : 'unreadable',
    startedAt,
    finishedAt,
    durationMs: spanMs(startedAt, finishedAt),
    inputs: {},
    ingestEnabled: source.kind === 'ingest' ? true : facts.ingestEnabled,
    budgets: null,
  };
}

/** Steps by status: each node or step id counts once, by its last execution. */
function countSteps(steps: readonly ReportStep[]): Record<ReportStepStatus, number> {
  const last = new Map<string, ReportStepStatus>();
  for (const step of steps) last.set(step.id, step.status);
  const counts: Record<ReportStepStatus, number> = {
    completed: 0,
    failed: 0,
    skipped: 0,
    pending: 0,
    running: 0,
  };
  for (const status of last.values()) counts[status] += 1;
  return counts;
}

function latest(times: readonly (string | null)[]): string | null {
  let found: string | null = null;
  for (const time of times)
    if (time !== null && (found === null || Date.parse(time) > Date.parse(found))) found = time;
  return found;
}
