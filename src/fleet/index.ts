export { clearPending, listPending, markPending, OUTBOX_DIR, outboxEntry } from './outbox.js';
export { pushRuns } from './push-runs.js';
export type { PushFailure, PushReport, PushRunsOptions } from './push-runs.js';
export { startRunPush } from './run-push.js';
export type { PushEvents, RunPush, RunPushOptions } from './run-push.js';
