export { findInvalidUnicode } from './find-invalid-unicode.js';
export type { InvalidUnicode } from './find-invalid-unicode.js';
export { foldCase } from './fold-case.js';
export { pathCollisionKey } from './path-collision-key.js';
export { checkDeclaredPath, findSecretInPath, MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from './path-rules.js';
