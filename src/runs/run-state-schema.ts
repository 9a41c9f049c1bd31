import { z } from 'zod';
import { CONTRACT_TYPES } from '../contracts/index.js';
import { ingestModeSchema } from '../ingest/index.js';
import { nodeIdSchema, runIdSchema } from '../project/index.js';
import { hostNameSchema } from './run-host.js';
import type {
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  RunBudgetsState,
  RunState,
} from './run-state-types.js';

const count = z.number().int().nonnegative();
const timestamp = z.iso.datetime();

/** Schema of a node's ingest summary in state.json. */
export const nodeIngestSummarySchema: z.ZodType<NodeIngestSummary> = z
  .object({
    total_blocks: count,
    written: count,
    skipped: count,
    rejected: count,
    manifest_path: z.string(),
    problems: z.array(z.string()).readonly(),
    io_errors: count.exactOptional(),
    io_error: z.string().exactOptional(),
  })
  .strict();

const fieldErrorSchema = z
  .object({ path: z.string(), expected: z.string(), got: z.string().exactOptional(), message: z.string() })
  .strict();

/** Schema of a node's contract state in state.json. */
export const nodeContractStateSchema: z.ZodType<NodeContractState> = z
  .object({
    type: z.enum(CONTRACT_TYPES),
    state: z.enum(['done', 'fix_needed', 'blocked']),
    attempts: count,
    artifact: z.string().min(1).exactOptional(),
    reason: z.string().exactOptional(),
    errors: z.array(fieldErrorSchema).readonly().exactOptional(),
  })
  .strict();

/** Schema of a run's budgets in state.json. */
export const runBudgetsStateSchema: z.ZodType<RunBudgetsState> = z
  .object({
    max_minutes: z.number().positive().exactOptional(),
    max_agent_calls: z.number().int().positive().exactOptional(),
    max_fix_attempts: count,
    agent_calls: count,
    minutes: z.number().nonnegative(),
    exceeded: z.string().exactOptional(),
  })
  .strict();

/** Schema of one node's record in state.json. */
export const nodeStateSchema: z.ZodType<NodeState> = z
  .object({
    status: z.enum(['pending', 'running', 'completed', 'failed', 'skipped']),
    attempts: count,
    started_at: timestamp.exactOptional(),
    finished_at: timestamp.exactOptional(),
    output_path: z.string().min(1).exactOptional(),
    output_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .exactOptional(),
    prompt_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .exactOptional(),
    agent: z.string().exactOptional(),
    error: z
      .object({ code: z.string().min(1), message: z.string() })
      .strict()
      .exactOptional(),
    ingest: nodeIngestSummarySchema.exactOptional(),
    contract: nodeContractStateSchema.exactOptional(),
  })
  .strict();

/** Schema of `.agent/runs/<run_id>/state.json` (version 1); see docs/runtime-runs.md. */
export const runStateSchema: z.ZodType<RunState> = z
  .object({
    version: z.literal(1),
    run_id: runIdSchema,
    host: hostNameSchema.exactOptional(),
    status: z.enum(['running', 'completed', 'failed']),
    graph: z.object({ name: z.string().min(1), hash: z.string().min(1), source: z.string() }).strict(),
    mode: ingestModeSchema,
    inputs: z.record(z.string(), z.string()),
    ingest_enabled: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
    nodes: z.record(nodeIdSchema, nodeStateSchema),
    budgets: runBudgetsStateSchema.exactOptional(),
  })
  .strict();
