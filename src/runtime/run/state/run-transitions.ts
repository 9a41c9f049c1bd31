import { z } from 'zod';
import { nodeIdSchema, sha256Hex } from '../../../project/index.js';
import { nodeStateSchema, runBudgetsStateSchema } from '../../../runs/index.js';
import type { NodeState, RunBudgetsState, RunState, RunStatus } from '../../../runs/index.js';

/** The first line of transitions.jsonl: which state.json (by the sha256 of its bytes) the lines below extend. */
export interface TransitionLogHeader {
  readonly transitions: 1;
  readonly base_sha256: string;
}

/** One line of transitions.jsonl after the header: a node's new record, the run's new status, or both. */
export interface RunTransition {
  /** 1 for the first line after the header, then +1 per line: a gap means the rest is not trusted. */
  readonly seq: number;
  /** The state's `updated_at` once this line applies. */
  readonly at: string;
  readonly node?: string;
  readonly state?: NodeState;
  readonly status?: RunStatus;
  readonly budgets?: RunBudgetsState;
}

const headerSchema = z
  .object({
    transitions: z.literal(1),
    base_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  })
  .strict();

const transitionSchema: z.ZodType<RunTransition> = z
  .object({
    seq: z.number().int().positive(),
    at: z.iso.datetime(),
    node: nodeIdSchema.exactOptional(),
    state: nodeStateSchema.exactOptional(),
    status: z.enum(['running', 'completed', 'failed']).exactOptional(),
    budgets: runBudgetsStateSchema.exactOptional(),
  })
  .strict()
  .refine((line) => (line.node === undefined) === (line.state === undefined), {
    message: 'node and state go together',
  });

/** The header line (with its newline) of a log that extends the state.json whose bytes hash to `baseSha256`. */
export function transitionLogHeader(baseSha256: string): string {
  const header: TransitionLogHeader = { transitions: 1, base_sha256: baseSha256 };
  return `${JSON.stringify(header)}\n`;
}

/**
 * The state state.json's text and the transition log's text describe together: `state` (parsed from
 * `stateText`) with every complete, in-sequence line of `logText` applied in order. A log whose header names
 * other state.json bytes (a compaction that crashed before rewriting the log, or a state.json edited by hand)
 * adds nothing; a torn last line (kill -9 mid-append) and everything after a line that does not parse or
 * breaks the sequence are ignored, as a truncated line of artifacts.jsonl is.
 */
export function applyRunTransitions(state: RunState, stateText: string, logText: string): RunState {
  // Only lines ended by a newline were appended whole; whatever follows the last newline is a torn append.
  const lines = logText.split('\n').slice(0, -1);
  const header = headerSchema.safeParse(parseJson(lines[0]));
  if (!header.success || header.data.base_sha256 !== sha256Hex(new TextEncoder().encode(stateText))) {
    return state;
  }
  const nodes: Record<string, NodeState> = { ...state.nodes };
  let { status, updated_at: updatedAt, budgets } = state;
  for (let index = 1; index < lines.length; index++) {
    const line = transitionSchema.safeParse(parseJson(lines[index]));
    if (!line.success || line.data.seq !== index) break;
    const transition = line.data;
    if (transition.node !== undefined && transition.state !== undefined) {
      if (!Object.hasOwn(nodes, transition.node)) break;
      nodes[transition.node] = transition.state;
    }
    status = transition.status ?? status;
    budgets = transition.budgets ?? budgets;
    updatedAt = transition.at;
  }
  return {
    ...state,
    status,
    updated_at: updatedAt,
    nodes,
    ...(budgets === undefined ? {} : { budgets }),
  };
}

function parseJson(line: string | undefined): unknown {
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
