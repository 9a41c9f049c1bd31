import { AGENT_DIR } from '../project/index.js';
import { StoreError } from './store-error.js';

/** Keys longer than this are misuse: no layout path comes near it. */
const MAX_KEY_BYTES = 1024;

/** One component of a key: what the layout writes (ids, hex digits, `state.json`), never `.`, `..` or a slash. */
const KEY_COMPONENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Checks that `key` is a plain project-relative path below `.agent/` (`.agent/runs/r1/state.json`), as the layout
 * functions of `src/project/` spell them, and returns its components below `.agent/`; throws `malformed_key`
 * otherwise. `.agent` itself (no component) is a folder key only when `folder` is set.
 */
export function storeKeyComponents(key: string, options: { readonly folder?: boolean } = {}): string[] {
  const components = key.split('/');
  const [top, ...below] = components;
  const wellFormed =
    top === AGENT_DIR &&
    Buffer.byteLength(key) <= MAX_KEY_BYTES &&
    (below.length > 0 || options.folder === true) &&
    below.every((component) => KEY_COMPONENT.test(component));
  if (!wellFormed) {
    throw new StoreError({
      code: 'malformed_key',
      key,
      message: `store key ${JSON.stringify(key)} is not a plain path below ${AGENT_DIR}/ (letters, digits, '.', '_' and '-' in each component)`,
    });
  }
  return below;
}

/** Misuse of `readFrom`: an offset or a length that is not a whole number of bytes. */
export function checkReadRange(from: number, length: number | undefined): void {
  if (!Number.isSafeInteger(from) || from < 0) {
    throw new RangeError(`readFrom: offset ${String(from)} is not a whole number of bytes`);
  }
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 0)) {
    throw new RangeError(`readFrom: length ${String(length)} is not a whole number of bytes`);
  }
}

/** Checks `key` (as {@link storeKeyComponents} does) and that it lies below the folder key `folder`; misuse otherwise. */
export function checkKeyBelow(folder: string, key: string, caller = 'replaceFolder'): void {
  storeKeyComponents(key);
  if (!key.startsWith(`${folder}/`)) {
    throw new Error(`${caller}: ${JSON.stringify(key)} is not below ${JSON.stringify(folder)}`);
  }
}
