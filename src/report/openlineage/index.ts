export {
  DEFAULT_LINEAGE_NAMESPACE,
  openLineageEventsOf,
  type OpenLineageOptions,
} from './open-lineage-events-of.js';
export { CUSTOM_FACET_KEYS, facetSourcesFor, type FacetSources } from './lineage-facets.js';
export { LINEAGE_UUID_NAMESPACE, lineageRunUuid } from './lineage-run-uuid.js';
export {
  RUN_EVENT_SCHEMA_URL,
  STANDARD_FACET_SCHEMA_URLS,
  runEventSchema,
  type LineageDataset,
  type LineageFacet,
  type LineageFacets,
  type RunEvent,
} from './run-event-schema.js';
export { LINEAGE_API_PATH, lineageEndpoint, type LineageEndpoint } from './lineage-endpoint.js';
export {
  sendLineageEvents,
  type LineageSendErrorCode,
  type LineageSendFailure,
  type LineageSendProgress,
  type LineageSendResult,
  type SendLineageOptions,
} from './send-lineage-events.js';
