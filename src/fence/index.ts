export type {
  FenceBlock,
  FenceFormatCode,
  FenceScan,
  FenceVerdict,
  OmittedCandidateKind,
  OmittedCandidates,
  ParseFencesOptions,
} from './fence-block.js';
export { parseFences } from './parse-fences.js';
export { mayHoldCandidate } from './may-hold-candidate.js';
export { readArtifactAttribute } from './read-artifact-attribute.js';
export { FenceFeed } from './fence-feed.js';
export type { OpenedBlock } from './fence-feed.js';
