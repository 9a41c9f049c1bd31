import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describeSchemaIssues } from '../../config/index.js';
import { z } from 'zod';
import { CONTRACT_TYPES } from '../../contracts/index.js';
import { ingestModeSchema } from '../../ingest/index.js';
import {
  describeError,
  nodeIdSchema,
  runDir,
  runIdSchema,
  runStatePath,
  UnknownRunError,
} from '../../project/index.js';
import { redactJson } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import { RunError } from './run-error.js';
import type {
  NodeContractState,
  NodeIngestSummary,
  NodeState,
  RunBudgetsState,
  RunState,
} from './run-types.js';

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

/**
 * Reads and checks a run's state.json; throws {@link UnknownRunError} when the run's folder does not exist,
 * {@link RunError} `not_a_graph_run` when the folder holds no state.json (a CLI ingest's run), and
 * {@link RunError} `state_unreadable` naming the file when it cannot be read or is invalid.
 */
export async function readRunState(projectDir: string, runId: RunId): Promise<RunState> {
  const relative = runStatePath(runId);
  let text: string;
  try {
    text = await readFile(path.join(projectDir, relative), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      if (!(await isDirectory(path.join(projectDir, runDir(runId))))) throw new UnknownRunError(runId);
      throw new RunError(
        'not_a_graph_run',
        `run ${runId} has no ${relative}: it was made by 'artifact-ingest ingest', not by a graph, and cannot be resumed; start a new run instead`,
      );
    }
    throw new RunError('state_unreadable', `cannot read ${relative}: ${describeError(error)}`, {
      cause: error,
    });
  }
  return parseRunState(text, relative);
}

async function isDirectory(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isDirectory();
  } catch {
    return false;
  }
}

/** Parses state.json text; throws {@link RunError} `state_unreadable` naming `file` and every issue. */
export function parseRunState(text: string, file: string): RunState {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new RunError(
      'state_unreadable',
      `${file} is not valid JSON (${(error as Error).message}); it was not written by this runtime or was edited by hand`,
      { cause: error },
    );
  }
  const checked = runStateSchema.safeParse(json);
  if (!checked.success) {
    const issues = describeSchemaIssues(checked.error.issues);
    throw new RunError('state_unreadable', `${file} is not a valid run state (version 1): ${issues}`);
  }
  return checked.data;
}

/** Writes a run's state.json atomically (temp file + rename) through the confined writer. */
export async function writeRunState(
  root: ConfinedRoot,
  state: RunState,
  durability: 'fsync' | 'none' = 'fsync',
): Promise<void> {
  const relative = runStatePath(state.run_id);
  // Errors, outputs recorded as text and inputs are redacted (docs/security.md, "Secrets").
  const bytes = new TextEncoder().encode(`${JSON.stringify(redactJson(state), null, 2)}\n`);
  const outcome = await root.write(relative, bytes, { durability });
  if (outcome.status === 'refused') {
    throw new RunError(
      'state_write_failed',
      `${relative} was not written: ${outcome.code}: ${outcome.message}`,
    );
  }
}
