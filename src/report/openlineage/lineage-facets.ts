import type { ReportFile, ReportRunHeader, ReportStep } from '../model/index.js';
import { STANDARD_FACET_SCHEMA_URLS } from './run-event-schema.js';

/** Who made the events and where our custom facets' JSON Schema lives (`_producer`, `_schemaURL`). */
export interface FacetSources {
  readonly producer: string;
  /** The URL of docs/openlineage-facets.schema.json at this version; each facet adds `#/$defs/<Name>`. */
  readonly facetSchemaURL: string;
}

/**
 * The producer URI and custom-facet schema URL of a package version: immutable pointers at its git tag, as the
 * spec asks of a facet's `_schemaURL`.
 */
export function facetSourcesFor(packageVersion: string): FacetSources {
  return {
    producer: `https://github.com/artifact-ingest/artifact-ingest/tree/v${packageVersion}`,
    facetSchemaURL: `https://raw.githubusercontent.com/artifact-ingest/artifact-ingest/v${packageVersion}/docs/openlineage-facets.schema.json`,
  };
}

/** The custom facets' keys: `{prefix}_{name}` in camelCase (spec OpenLineage.md, "Custom Facet Naming"). */
export const CUSTOM_FACET_KEYS = {
  definition: 'artifactIngest_definition',
  agent: 'artifactIngest_agent',
  terminal: 'artifactIngest_terminal',
  version: 'artifactIngest_version',
} as const;

function standard(sources: FacetSources, key: keyof typeof STANDARD_FACET_SCHEMA_URLS) {
  return { _producer: sources.producer, _schemaURL: STANDARD_FACET_SCHEMA_URLS[key] };
}

// The facets' `$defs` names follow `{prefix}{name}{entity}Facet` in PascalCase, as the spec asks.
function custom(sources: FacetSources, name: string) {
  return { _producer: sources.producer, _schemaURL: `${sources.facetSchemaURL}#/$defs/${name}` };
}

/** `artifactIngest_definition`: our run id, its kind and the graph or workflow definition with its hash. */
export function definitionFacet(sources: FacetSources, run: ReportRunHeader) {
  return {
    ...custom(sources, 'ArtifactIngestDefinitionRunFacet'),
    runId: run.runId,
    kind: run.kind,
    name: run.definition?.name ?? null,
    hash: run.definition?.hash ?? null,
    source: run.definition?.source ?? null,
    mode: run.mode,
  };
}

/** `artifactIngest_agent`: the agent a step ran, its attempt and the hash of the prompt it was given. */
export function agentFacet(sources: FacetSources, step: ReportStep) {
  return {
    ...custom(sources, 'ArtifactIngestAgentRunFacet'),
    agent: step.agent,
    attempt: step.attempt,
    promptSha256: step.promptSha256,
    stepKey: step.key,
    stepKind: step.kind,
  };
}

/** `artifactIngest_terminal`: the terminal state the run declared (done, blocked, ...) and why. */
export function terminalFacet(sources: FacetSources, terminal: NonNullable<ReportRunHeader['terminal']>) {
  return {
    ...custom(sources, 'ArtifactIngestTerminalRunFacet'),
    state: terminal.state,
    reason: terminal.reason,
    artifact: terminal.artifact,
    at: terminal.at,
  };
}

/** `artifactIngest_version`: the file version a step wrote, with its size and line changes. */
export function fileVersionFacet(sources: FacetSources, file: ReportFile) {
  return {
    ...custom(sources, 'ArtifactIngestVersionDatasetFacet'),
    contentHash: file.contentHash,
    bytes: file.bytes,
    linesAdded: file.linesAdded,
    linesRemoved: file.linesRemoved,
    change: file.change,
    artifactId: file.artifactId,
    previous: file.previous,
  };
}

/** The standard `version` dataset facet. */
export function datasetVersionFacet(sources: FacetSources, datasetVersion: string) {
  return { ...standard(sources, 'version'), datasetVersion };
}

/** The standard `jobType` job facet: our integration name and whether the job is a run or one of its steps. */
export function jobTypeFacet(sources: FacetSources, jobType: string) {
  return {
    ...standard(sources, 'jobType'),
    processingType: 'BATCH',
    integration: 'ARTIFACT_INGEST',
    jobType,
  };
}

/** The standard `errorMessage` run facet. */
export function errorMessageFacet(sources: FacetSources, message: string) {
  return { ...standard(sources, 'errorMessage'), message, programmingLanguage: 'TypeScript' };
}

/** The standard `parent` run facet naming the run's own job and run, which is also the root. */
export function parentFacet(
  sources: FacetSources,
  parent: { runId: string; namespace: string; name: string },
) {
  const run = { runId: parent.runId };
  const job = { namespace: parent.namespace, name: parent.name };
  return { ...standard(sources, 'parent'), run, job, root: { run, job } };
}
