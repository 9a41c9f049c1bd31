import { checkDeclaredPath } from '../../workspace/index.js';
import { BundleError } from './bundle-error.js';
import { AGENT_DIR, OBJECTS_DIR, RUNS_DIR, runDir } from '../../project/index.js';
import { BUNDLE_MANIFEST_PATH, isRunBookkeeping } from './bundle-manifest.js';
import { isRunRecordFile, RUN_RECORD_FILES_SHOWN } from './is-run-record-file.js';
import type { RunId } from '../../project/index.js';

/** Where an accepted bundle entry (after the manifest) goes in the project. */
export type BundleEntryVerdict =
  | { readonly kind: 'runFile'; readonly path: string }
  | { readonly kind: 'runDirectory'; readonly path: string }
  | { readonly kind: 'object'; readonly path: string; readonly hash: string };

// objectPath() of the layout, as a pattern: `<OBJECTS_DIR>/sha256/<2 hex>/<62 hex>`.
const OBJECT_PATH = new RegExp(`^${OBJECTS_DIR.replaceAll('.', '\\.')}/sha256/([0-9a-f]{2})/([0-9a-f]{62})$`);

/**
 * Judges one archive entry after the manifest by its raw header path and type, never a sanitised form:
 * regular files and folders only, a plain relative path, and a place inside the run `runId` or the object
 * store. Returns where it goes, or the {@link BundleError} that refuses it.
 */
export function judgeBundleEntry(
  raw: string,
  type: string,
  linkpath: string | undefined,
  runId: RunId | undefined,
): BundleEntryVerdict | BundleError {
  const shown = JSON.stringify(raw);
  if (type === 'SymbolicLink' || type === 'Link') {
    const what = type === 'Link' ? 'a hard link' : 'a symlink';
    return new BundleError({
      code: 'link_entry',
      entry: raw,
      message: `entry ${shown} is ${what} to ${JSON.stringify(linkpath ?? '')}; a bundle holds regular files and folders only, so it was refused`,
    });
  }
  if (type !== 'File' && type !== 'Directory') {
    return new BundleError({
      code: 'unsupported_entry',
      entry: raw,
      message: `entry ${shown} is a ${type} entry; a bundle holds regular files and folders only, so it was refused`,
    });
  }
  // A folder entry may end in one '/'; everything else about the path must already be plain.
  const path = type === 'Directory' && raw.endsWith('/') ? raw.slice(0, -1) : raw;
  const unsafe = whyPathUnsafe(path);
  if (unsafe !== undefined) {
    return new BundleError({
      code: 'unsafe_path',
      entry: raw,
      message: `entry ${shown} ${unsafe}; a bundle holds plain paths below ${AGENT_DIR}/ only, so it was refused`,
    });
  }
  // Before the manifest is read no run folder is known, so no entry can belong to it.
  const runFolder = runId === undefined ? undefined : runDir(runId);
  if (
    runFolder !== undefined &&
    type === 'Directory' &&
    (path === runFolder || path.startsWith(`${runFolder}/`))
  ) {
    return { kind: 'runDirectory', path };
  }
  if (runFolder !== undefined && type === 'File' && path.startsWith(`${runFolder}/`)) {
    if (isRunBookkeeping(path.slice(runFolder.length + 1))) {
      return unexpected(raw, 'is a run lock or temp file, which bundles never hold');
    }
    if (!isRunRecordFile(path.slice(runFolder.length + 1))) {
      return unexpected(raw, `is not a file a run folder holds (${RUN_RECORD_FILES_SHOWN})`);
    }
    return { kind: 'runFile', path };
  }
  const object = type === 'File' ? OBJECT_PATH.exec(path) : null;
  if (object !== null) return { kind: 'object', path, hash: `sha256:${object[1] ?? ''}${object[2] ?? ''}` };
  if (path === BUNDLE_MANIFEST_PATH)
    return unexpected(raw, 'repeats the manifest, which comes once and first');
  return unexpected(
    raw,
    `is outside the bundle's places (${runFolder ?? `${RUNS_DIR}/<run_id>`}/ and ${OBJECTS_DIR}/sha256/<2 hex>/<62 hex>)`,
  );
}

/** Why a path is not a plain project-relative path a bundle may hold, or undefined when it is one. */
export function whyPathUnsafe(path: string): string | undefined {
  if (path === '') return 'has an empty path';
  if (path.startsWith('/')) return 'is an absolute path';
  if (path.includes('\\')) return "contains '\\'";
  const segments = path.split('/');
  if (segments.includes('')) return 'has an empty segment (a doubled or trailing /)';
  if (segments.includes('..')) return "has a '..' segment";
  if (segments.includes('.')) return "has a '.' segment";
  // The workspace's path rules add control characters, invalid Unicode, drive letters, ':' and Windows names.
  const verdict = checkDeclaredPath(path);
  if (!verdict.ok) return `breaks the path rule ${verdict.code}`;
  if (verdict.path !== path) return 'is not in normal form';
  return undefined;
}

function unexpected(raw: string, why: string): BundleError {
  return new BundleError({
    code: 'unexpected_entry',
    entry: raw,
    message: `entry ${JSON.stringify(raw)} ${why}; it was refused`,
  });
}
