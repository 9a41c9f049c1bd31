import { z } from 'zod';
import { ingestManifestSchema } from './ingest-manifest.js';

/** Manifest v1 as JSON Schema (draft 2020-12), generated from the zod schema; docs/manifest.schema.json holds a copy. */
export function manifestJsonSchema(): Record<string, unknown> {
  return {
    title: 'artifact-ingest manifest v1',
    ...z.toJSONSchema(ingestManifestSchema, { target: 'draft-2020-12' }),
  };
}
