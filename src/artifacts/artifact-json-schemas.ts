import { z } from 'zod';
import { artifactRecordSchema } from './artifact-record.js';
import { traceContentSchema } from './trace-content.js';

/** The artifact record as JSON Schema (draft 2020-12), generated from zod; docs/artifact-record.schema.json holds a copy. */
export function artifactRecordJsonSchema(): Record<string, unknown> {
  return {
    title: 'artifact-ingest artifact record',
    ...z.toJSONSchema(artifactRecordSchema, { target: 'draft-2020-12' }),
  };
}

/** A trace artifact's content as JSON Schema (draft 2020-12); docs/trace.schema.json holds a copy. */
export function traceContentJsonSchema(): Record<string, unknown> {
  return {
    title: 'artifact-ingest trace content v1',
    ...z.toJSONSchema(traceContentSchema, { target: 'draft-2020-12' }),
  };
}
