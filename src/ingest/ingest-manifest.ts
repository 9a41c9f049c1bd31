import { z } from 'zod';
import { nodeIdSchema, runIdSchema } from '../project/index.js';

/** Graph mode recorded in a manifest's source. */
export const ingestModeSchema = z.enum(['single', 'self_critique', 'team', 'unknown']);

/** Who asked for the ingest. */
export const sourceKindSchema = z.enum(['graph_runtime', 'cli', 'workflow']);

/** The reason code of the one entry that stands for every candidate past `max_blocks`, when it is the last. */
const OMITTED_REASON = 'too_many_blocks';

/** One candidate block's entry in manifest v1. */
export const manifestArtifactSchema = z
  .object({
    index: z.number().int().nonnegative(),
    lang: z.string(),
    declared_file: z.string(),
    workspace_path: z.union([z.literal(''), z.string().startsWith('workspace/')]),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    status: z.enum(['written', 'skipped', 'rejected']),
    reason: z.string(),
    // Added to v1 as optional (issue 28): on an edit block only, the SHA-256 of its patch text.
    patch_sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .optional(),
    // Added to v1 as optional (D97): absent unless the entry has a warning, each `code: message`.
    warnings: z.array(z.string()).min(1).optional(),
  })
  .strict();

/** Ingest manifest v1: the record of one document's ingest (spec ingest.md section 4, seed 001). */
export const ingestManifestSchema = z
  .object({
    version: z.literal('1'),
    run_id: runIdSchema,
    node_id: nodeIdSchema,
    source: z
      .object({
        kind: sourceKindSchema,
        mode: ingestModeSchema,
        doc_path: z.string().min(1),
      })
      .strict(),
    artifacts: z.array(manifestArtifactSchema),
    summary: z
      .object({
        total_blocks: z.number().int().nonnegative(),
        written: z.number().int().nonnegative(),
        skipped: z.number().int().nonnegative(),
        rejected: z.number().int().nonnegative(),
      })
      .strict(),
    ts: z.iso.datetime(),
  })
  .strict()
  .check((ctx) => {
    const { artifacts, summary } = ctx.value;
    const last = artifacts.at(-1);
    // The last entry, when it is `too_many_blocks`, stands for every candidate from its index on (issue 23:
    // past max_blocks the candidates are counted, not listed); every other entry for one candidate.
    const omitted =
      last?.reason.startsWith(`${OMITTED_REASON}: `) === true ? summary.total_blocks - last.index : 1;
    const candidatesOf = (entry: ManifestArtifact): number => (entry === last ? omitted : 1);
    const count = (status: string): number =>
      artifacts.reduce((sum, entry) => (entry.status === status ? sum + candidatesOf(entry) : sum), 0);
    const total = artifacts.reduce((sum, entry) => sum + candidatesOf(entry), 0);
    if (omitted < 1 || summary.total_blocks !== total) {
      ctx.issues.push({
        code: 'custom',
        message:
          'summary.total_blocks must equal artifacts.length, or, when the last entry is too_many_blocks, its index plus the candidates it stands for',
        input: summary,
      });
    }
    for (const status of ['written', 'skipped', 'rejected'] as const) {
      if (summary[status] !== count(status)) {
        ctx.issues.push({
          code: 'custom',
          message: `summary.${status} must count the ${status} candidates`,
          input: summary,
        });
      }
    }
  });

/** Ingest manifest v1. */
export type IngestManifest = z.infer<typeof ingestManifestSchema>;
/** One manifest entry. */
export type ManifestArtifact = z.infer<typeof manifestArtifactSchema>;
/** Graph mode. */
export type IngestMode = z.infer<typeof ingestModeSchema>;
/** Source kind. */
export type SourceKind = z.infer<typeof sourceKindSchema>;
