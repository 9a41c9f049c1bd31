import { z } from 'zod';
import { nodeIdSchema, runIdSchema, sha256Hex } from '../project/index.js';
import type { NodeId, RunId } from '../project/index.js';

/** A run, task or node id as the project layout allows it in a folder name. */

/** An artifact id: `art-` followed by 12 lowercase hex digits. */
export const artifactIdSchema = z
  .string()
  .regex(/^art-[0-9a-f]{12}$/, 'must be art- followed by 12 hex digits');

/** A content hash as records and the object store spell it: `sha256:` followed by 64 lowercase hex digits. */
export const contentHashSchema = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256: followed by 64 lowercase hex digits');

/** The four kinds of output the product records (spec artifacts.md, "The record"). */
export const artifactTypeSchema = z.enum(['file', 'design', 'message', 'trace']);

/** Which path produced a record: ingest, register_artefacts, a contract submission or the runtime. */
export const artifactSourceSchema = z.enum(['ingest', 'register', 'submit', 'runtime']);

/** The metadata of one artifact version: size, line changes against the previous version, and where it came from. */
export const artifactMetadataSchema = z
  .object({
    language: z.string().min(1).optional(),
    bytes: z.number().int().nonnegative(),
    linesAdded: z.number().int().nonnegative(),
    linesRemoved: z.number().int().nonnegative(),
    /** How the line changes were counted; absent: a minimal diff (docs/artifacts.md, "Line counts"). */
    lineCount: z.enum(['diff', 'multiset']).optional(),
    previous: artifactIdSchema.optional(),
    source: artifactSourceSchema,
    /** The contract type of a `submit` record (spec contracts.md, "The canonical path"). */
    contract: z
      .string()
      .regex(/^[a-z][a-z_]*$/)
      .optional(),
  })
  .strict();

/** One artifact record, one line of `.agent/runs/<run_id>/artifacts.jsonl` (spec artifacts.md). */
export const artifactRecordSchema = z
  .object({
    artifactId: artifactIdSchema,
    runId: runIdSchema,
    taskId: nodeIdSchema,
    agentId: z.string().min(1),
    type: artifactTypeSchema,
    path: z.string().min(1),
    contentHash: contentHashSchema,
    createdAt: z.iso.datetime(),
    metadata: artifactMetadataSchema,
  })
  .strict();

/** One artifact record. */
export type ArtifactRecord = z.infer<typeof artifactRecordSchema>;
/** The metadata of one artifact record. */
export type ArtifactMetadata = z.infer<typeof artifactMetadataSchema>;
/** An artifact's type. */
export type ArtifactType = z.infer<typeof artifactTypeSchema>;
/** Which path produced an artifact record. */
export type ArtifactSource = z.infer<typeof artifactSourceSchema>;

/** The place and content an artifact id is derived from. */
export interface ArtifactIdInput {
  readonly runId: RunId;
  readonly taskId: NodeId;
  readonly path: string;
  readonly contentHash: string;
}

/** Derives the deterministic artifact id of a content at its place, so re-ingesting a document yields the same ids. */
export function artifactIdOf(input: ArtifactIdInput): string {
  // A JSON array keeps the encoding unambiguous: no choice of separator can make two inputs collide.
  const canonical = JSON.stringify([
    'artifact-id/v1',
    input.runId,
    input.taskId,
    input.path,
    input.contentHash,
  ]);
  return `art-${sha256Hex(canonical).slice(0, 12)}`;
}
