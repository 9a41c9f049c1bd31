// artifact-ingest/ai-sdk: the Vercel AI SDK adapters. Only types come from `ai`, so this module loads no `ai` code.
export { ingestTransform } from './ingest-transform.js';
export type { IngestTransform } from './ingest-transform.js';
export { ingestOnFinish } from './ingest-on-finish.js';
export type { FinishedText, IngestOnFinish } from './ingest-on-finish.js';
export type { AiSdkIngestOptions, IngestDone } from './document-ingest.js';
export type { IngestStreamEvent } from '../ingest/index.js';
