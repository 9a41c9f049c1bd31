export { registerArtefacts } from './register-artefacts.js';
export type {
  InvalidArtefact,
  RegisterArtefactsOptions,
  RegisterArtefactsRequest,
  RegisterArtefactsResult,
} from './register-artefacts.js';
export type { RegistrationProblemCode } from './judge-artefact-path.js';
export { ObserveError } from './observe-error.js';
export type { ObserveErrorCode } from './observe-error.js';
export { compileGitignore } from './gitignore-matcher.js';
export type { GitignoreMatcher } from './gitignore-matcher.js';
export { hashProjectFile } from './hash-project-file.js';
export type { ProjectFileHasher, ProjectFileSource } from './hash-project-file.js';
export { projectSnapshotSchema, snapshotEntrySchema } from './project-snapshot-schema.js';
export type { ProjectSnapshot, SnapshotEntry } from './project-snapshot-schema.js';
export { SNAPSHOT_EXCLUDED, snapshotProject } from './snapshot-project.js';
export { SECRET_KEY_PREFIX, snapshotKey } from './snapshot-key.js';
export type { SnapshotOptions } from './snapshot-project.js';
export { readProjectSnapshot, snapshotPath, writeProjectSnapshot } from './project-snapshot-file.js';
export { pathsToRegister, reconcile } from './reconcile.js';
export type { Reconciliation } from './reconcile.js';
export { beginStepObservation, endStepObservation } from './observe-step.js';
export type { ObservedStep, ObserveStepOptions, StepObservation } from './observe-step.js';
