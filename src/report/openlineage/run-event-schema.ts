import { z } from 'zod';

// Written from the OpenLineage spec at github.com/OpenLineage/OpenLineage commit 8f02abfb7a25 (vendored under
// fixtures/openlineage/): core spec 2-0-2 (spec/OpenLineage.json) and the facets ParentRunFacet 1-2-0,
// JobTypeJobFacet 2-0-4, ErrorMessageRunFacet 1-0-1 and DatasetVersionDatasetFacet 1-0-1. Objects are loose
// because the spec leaves additionalProperties open everywhere; formats are the spec's (uri, uuid, date-time).

/** The `schemaURL` of every RunEvent we emit: the core spec version this schema was written from. */
export const RUN_EVENT_SCHEMA_URL = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent';

/** The `_schemaURL` of each standard facet we emit, by facet key. */
export const STANDARD_FACET_SCHEMA_URLS = {
  parent: 'https://openlineage.io/spec/facets/1-2-0/ParentRunFacet.json#/$defs/ParentRunFacet',
  errorMessage:
    'https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet',
  jobType: 'https://openlineage.io/spec/facets/2-0-4/JobTypeJobFacet.json#/$defs/JobTypeJobFacet',
  version:
    'https://openlineage.io/spec/facets/1-0-1/DatasetVersionDatasetFacet.json#/$defs/DatasetVersionDatasetFacet',
} as const;

const uri = z.url();

/** `$defs/BaseFacet`: every facet names its producer and the schema it follows. */
const baseFacetSchema = z.looseObject({ _producer: uri, _schemaURL: uri });
/** `$defs/JobFacet` and `$defs/DatasetFacet` add `_deleted` to the base facet. */
const deletableFacetSchema = baseFacetSchema.extend({ _deleted: z.boolean().optional() });

const runRefSchema = z.looseObject({
  runId: z.uuid(),
  facets: z.record(z.string(), baseFacetSchema).optional(),
});
const jobRefSchema = z.looseObject({
  namespace: z.string(),
  name: z.string(),
  facets: z.record(z.string(), deletableFacetSchema).optional(),
});

/** ParentRunFacet 1-2-0: the parent run and job, and optionally the root of the hierarchy. */
export const parentRunFacetSchema = baseFacetSchema.extend({
  run: runRefSchema,
  job: jobRefSchema,
  root: z.looseObject({ run: runRefSchema, job: jobRefSchema }).optional(),
});

/** ErrorMessageRunFacet 1-0-1: why a run failed. */
export const errorMessageRunFacetSchema = baseFacetSchema.extend({
  message: z.string(),
  programmingLanguage: z.string(),
  stackTrace: z.string().optional(),
});

/** JobTypeJobFacet 2-0-4: what kind of job this is, for the consumer's UI. */
export const jobTypeJobFacetSchema = deletableFacetSchema.extend({
  processingType: z.string(),
  integration: z.string(),
  jobType: z.string().optional(),
  emissionPattern: z
    .looseObject({
      eventTrigger: z.string(),
      eventContentMode: z.string(),
      windowDuration: z.int().min(1).optional(),
    })
    .optional(),
});

/** DatasetVersionDatasetFacet 1-0-1: the version of a dataset this run read or wrote. */
export const datasetVersionDatasetFacetSchema = deletableFacetSchema.extend({ datasetVersion: z.string() });

const runFacetsSchema = z
  .looseObject({
    parent: parentRunFacetSchema.optional(),
    errorMessage: errorMessageRunFacetSchema.optional(),
  })
  .catchall(baseFacetSchema);

const jobFacetsSchema = z
  .looseObject({ jobType: jobTypeJobFacetSchema.optional() })
  .catchall(deletableFacetSchema);

const datasetFacetsSchema = z
  .looseObject({ version: datasetVersionDatasetFacetSchema.optional() })
  .catchall(deletableFacetSchema);

/** `$defs/Dataset` with the input and output facets of `$defs/InputDataset` and `$defs/OutputDataset`. */
export const datasetSchema = z.looseObject({
  namespace: z.string(),
  name: z.string(),
  facets: datasetFacetsSchema.optional(),
  inputFacets: z.record(z.string(), baseFacetSchema).optional(),
  outputFacets: z.record(z.string(), baseFacetSchema).optional(),
});

/** `$defs/RunEvent` (BaseEvent fields included): one transition of one run of one job. */
export const runEventSchema = z.looseObject({
  eventTime: z.iso.datetime({ offset: true }),
  producer: uri,
  schemaURL: uri,
  eventType: z.enum(['START', 'RUNNING', 'COMPLETE', 'ABORT', 'FAIL', 'OTHER']).optional(),
  run: z.looseObject({ runId: z.uuid(), facets: runFacetsSchema.optional() }),
  job: z.looseObject({ namespace: z.string(), name: z.string(), facets: jobFacetsSchema.optional() }),
  inputs: z.array(datasetSchema).optional(),
  outputs: z.array(datasetSchema).optional(),
});

/** A facet: who produced it, the schema it follows, and its own fields. */
export interface LineageFacet {
  readonly _producer: string;
  readonly _schemaURL: string;
  readonly [field: string]: unknown;
}

/** Facets by key (`parent`, `version`, `artifactIngest_agent`, ...). */
export type LineageFacets = Readonly<Record<string, LineageFacet>>;

/** A dataset of a RunEvent's inputs or outputs. */
export interface LineageDataset {
  readonly namespace: string;
  readonly name: string;
  readonly facets?: LineageFacets;
}

/** An OpenLineage RunEvent as we emit it; {@link runEventSchema} checks it against the spec. */
export interface RunEvent {
  readonly eventType: 'START' | 'RUNNING' | 'COMPLETE' | 'ABORT' | 'FAIL' | 'OTHER';
  readonly eventTime: string;
  readonly producer: string;
  readonly schemaURL: string;
  readonly run: { readonly runId: string; readonly facets?: LineageFacets };
  readonly job: { readonly namespace: string; readonly name: string; readonly facets?: LineageFacets };
  readonly inputs?: readonly LineageDataset[];
  readonly outputs?: readonly LineageDataset[];
}
