export { submitArtifact } from './submit-artifact.js';
export type { SubmitArtifactOptions, SubmitOutcome, SubmitRefusalCode } from './submit-artifact.js';
export { omittedBlocksError, readContractBlocks } from './read-contract-blocks.js';
export type { ContractBlock, ContractBlockScan } from './read-contract-blocks.js';
export { readLatestPayload, readSubmissions } from './read-submissions.js';
export type { RecordedSubmission } from './read-submissions.js';
