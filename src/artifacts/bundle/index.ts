export { BundleError } from './bundle-error.js';
export type { BundleErrorCode } from './bundle-error.js';
export { bundleRun } from './bundle-run.js';
export type { BundleOptions, BundleSummary } from './bundle-run.js';
export { importBundle } from './import-bundle.js';
export type { ImportOptions, ImportSummary } from './import-bundle.js';
export { copyRun, RunCopyError } from './copy-run.js';
export type { CopyRunOptions, RunCopy, RunCopyErrorCode } from './copy-run.js';
