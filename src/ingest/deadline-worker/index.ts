export { DeadlineWorker } from './deadline-worker.js';
export type { DeadlineOutcome, DeadlineWorkerOptions } from './deadline-worker.js';
export type { DeadlineWorkerAnswer, DeadlineWorkerRequest } from './deadline-worker-message.js';
export { serveDeadlineWorker } from './serve-deadline-worker.js';
export { startWorkerThread } from './start-worker-thread.js';
export { workerEntryBeside } from './worker-entry-beside.js';
