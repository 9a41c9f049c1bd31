export { acquireRunLock, isRunLocked } from './run-lock.js';
export type { RunLock } from './run-lock.js';
export {
  parseRunState,
  readRunState,
  readTransitionLog,
  resolveRunState,
  runStateSchema,
} from './run-state.js';
export { createRunStateStore } from './run-state-store.js';
export type { RunStateStore } from './run-state-store.js';
