export { LineageError } from './lineage-error.js';
export type { LineageErrorCode } from './lineage-error.js';
export { logPath } from './log-path.js';
export type { PathLog, PathVersion } from './log-path.js';
export { verifyArtifacts } from './verify-artifacts.js';
export type { VerifyOptions, VerifyReport } from './verify-artifacts.js';
export type { VerifyProblem, VerifyProblemCode } from './verify-problem.js';
export { readRunTimeline } from './read-run-timeline.js';
export type {
  RunTimeline,
  TimelineStep,
  TimelineProblem,
  UnreadableTrace,
  UnreadableTraceReason,
} from './read-run-timeline.js';
export { replayRun } from './replay-run.js';
export type {
  ReplayOptions,
  RunReplay,
  ReplayStep,
  ReplayArtifact,
  ReplayProblem,
  PriorVersion,
  UnknownPrevious,
} from './replay-run.js';
export { openVersionDiffer } from './diff-versions.js';
export type {
  ReplayDiff,
  UnavailableDiffReason,
  VersionDiffer,
  VersionDifferOptions,
  VersionToDiff,
} from './diff-versions.js';
export { checkoutWorkspace, readCheckoutFiles } from './checkout-workspace.js';
export type {
  CheckoutOptions,
  Checkout,
  CheckoutContents,
  CheckoutCut,
  CheckedOutFile,
} from './checkout-workspace.js';
