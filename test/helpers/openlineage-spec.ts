import { readFileSync } from 'node:fs';
import { z } from 'zod';
import type { RunEvent } from '../../src/report/index.js';

const SPEC_DIR = new URL('../../fixtures/openlineage/', import.meta.url);
const CORE_REF = 'https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/';

type JsonSchema = { $defs: Record<string, unknown> } & Record<string, unknown>;

function readSchema(path: string | URL): JsonSchema {
  return JSON.parse(readFileSync(path, 'utf8')) as JsonSchema;
}

/** zod 4's converter; the vendored files are trusted JSON Schema, so the cast only names their type. */
function fromSchema(schema: unknown): z.ZodType {
  return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
}

const core = readSchema(new URL('OpenLineage.json', SPEC_DIR));

/**
 * A facet file with its references into the core spec made local: zod's fromJSONSchema resolves only `#/...`
 * references, so the core's `$defs` are copied in beside the facet's own.
 */
function facetValidator(file: string): z.ZodType {
  const text = readFileSync(new URL(`facets/${file}`, SPEC_DIR), 'utf8').replaceAll(CORE_REF, '#/$defs/');
  const schema = JSON.parse(text) as JsonSchema;
  return fromSchema({ ...schema, $defs: { ...core.$defs, ...schema.$defs } });
}

const runEvent = fromSchema({ $schema: core['$schema'], $defs: core.$defs, $ref: '#/$defs/RunEvent' });
const runFacets = [facetValidator('ParentRunFacet.json'), facetValidator('ErrorMessageRunFacet.json')];
const jobFacets = [facetValidator('JobTypeJobFacet.json')];
const datasetFacets = [facetValidator('DatasetVersionDatasetFacet.json')];

const customSchema = readSchema(new URL('../../docs/openlineage-facets.schema.json', import.meta.url));
const customFacets: Readonly<Record<string, z.ZodType>> = Object.fromEntries(
  Object.keys(customSchema.$defs)
    .filter((name) => name !== 'BaseFacet')
    .map((name) => [name, fromSchema({ ...customSchema, $ref: `#/$defs/${name}` })]),
);

/**
 * Every problem of an event against the vendored OpenLineage JSON Schema (RunEvent, then each standard facet
 * against its facet file) and against our own custom facets' schema; empty when it is valid.
 */
export function specProblemsOf(event: RunEvent): string[] {
  const problems: string[] = [];
  const check = (where: string, schema: z.ZodType, value: unknown): void => {
    const result = schema.safeParse(value);
    if (!result.success)
      problems.push(
        ...result.error.issues.map((issue) => `${where}${issue.path.join('.')}: ${issue.message}`),
      );
  };
  check('', runEvent, event);
  for (const schema of runFacets) check('run.facets.', schema, event.run.facets ?? {});
  for (const schema of jobFacets) check('job.facets.', schema, event.job.facets ?? {});
  for (const dataset of [...(event.inputs ?? []), ...(event.outputs ?? [])]) {
    for (const schema of datasetFacets)
      check(`dataset ${dataset.name} facets.`, schema, dataset.facets ?? {});
  }
  const facets = [
    ...Object.values(event.run.facets ?? {}),
    ...Object.values(event.job.facets ?? {}),
    ...[...(event.inputs ?? []), ...(event.outputs ?? [])].flatMap((dataset) =>
      Object.values(dataset.facets ?? {}),
    ),
  ];
  for (const facet of facets) {
    const name = /#\/\$defs\/(ArtifactIngest\w+)$/.exec(facet._schemaURL)?.[1];
    if (name === undefined) continue;
    const schema = customFacets[name];
    if (schema === undefined)
      problems.push(`${facet._schemaURL}: no such custom facet in docs/openlineage-facets.schema.json`);
    else check(`${name} `, schema, facet);
  }
  return problems;
}
