import { z } from 'zod';
import { nodeIdSchema, runIdSchema, tracePath } from '../project/index.js';
import type { NodeId, RunId } from '../project/index.js';

const isoTime = z.iso.datetime();

/**
 * The content of a `trace` artifact: one graph node execution or one workflow step pass (spec artifacts.md,
 * "The record": agent, rendered prompt hash, timings, exit, manifest summary; a workflow step adds its
 * declared-versus-observed reconciliation). Stored in the object store as JSON.
 */
export const traceContentSchema = z
  .object({
    version: z.literal(1),
    runId: runIdSchema,
    nodeId: nodeIdSchema,
    /** The agent's name; `write_file` nodes have none and say `runtime`. */
    agent: z.string().min(1),
    /** The graph's (or the workflow definition's) name and the sha256 hex of its text. */
    graph: z.object({ name: z.string().min(1), hash: z.string().regex(/^[0-9a-f]{64}$/) }).strict(),
    /** sha256 hex of the rendered prompt (agent_task) or step instructions, or null (write_file). */
    promptSha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .nullable(),
    attempt: z.number().int().positive(),
    startedAt: isoTime,
    finishedAt: isoTime,
    durationMs: z.number().nonnegative(),
    outcome: z.enum(['completed', 'failed']),
    error: z
      .object({ code: z.string().min(1), message: z.string() })
      .strict()
      .optional(),
    document: z
      .object({
        path: z.string().min(1),
        sha256: z.string().regex(/^[0-9a-f]{64}$/),
        bytes: z.number().int().nonnegative(),
      })
      .strict()
      .optional(),
    ingest: z
      .object({
        total_blocks: z.number().int().nonnegative(),
        written: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
        rejected: z.number().int().nonnegative(),
        manifest_path: z.string(),
        problems: z.array(z.string()),
        /** Blocks not written for an I/O error, and the first one's message; absent: none. */
        io_errors: z.number().int().nonnegative().optional(),
        io_error: z.string().optional(),
      })
      .strict()
      .optional(),
    /** A workflow step: files written but not registered, and registered paths that did not change. */
    reconciliation: z
      .object({ unregistered: z.array(z.string()), phantom: z.array(z.string()) })
      .strict()
      .optional(),
  })
  .strict();

/** One node execution, the content of a `trace` artifact. */
export type TraceContent = z.infer<typeof traceContentSchema>;

/** The project-relative logical path of a node's trace records: `.agent/runs/<run_id>/traces/<node_id>.json`. */
export function tracePathOf(runId: RunId, nodeId: NodeId): string {
  return tracePath(runId, nodeId);
}
