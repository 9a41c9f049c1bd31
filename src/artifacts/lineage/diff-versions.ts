import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import type { ArtifactRecord } from '../artifact-record.js';
import { projectOf } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { ObjectStore } from '../store/index.js';
import { ObjectStoreError } from '../store/index.js';
import { MAX_DIFF_EDIT_LENGTH } from '../record/index.js';

/** Why a backward diff could not be made. */
export type UnavailableDiffReason = 'missing_object' | 'corrupt_object' | 'unknown_previous' | 'too_large';

/** How one version differs from its previous version (backward replay only). */
export type ReplayDiff =
  | { readonly kind: 'text'; readonly patch: string }
  | { readonly kind: 'binary'; readonly message: string }
  | { readonly kind: 'unavailable'; readonly reason: UnavailableDiffReason; readonly message: string };

/** A version to diff: its place, its content and the artifact id of the version it replaced (null: none). */
export interface VersionToDiff {
  readonly path: string;
  readonly artifactId: string;
  readonly contentHash: string;
  readonly previous: string | null;
}

/** Diffs versions against their previous ones, reading each object once and verifying it. */
export interface VersionDiffer {
  diffOf(version: VersionToDiff): Promise<ReplayDiff>;
  close(): Promise<void>;
}

/** Options of {@link openVersionDiffer}. */
export interface VersionDifferOptions {
  /** The largest edit (lines added plus removed) a diff may search for; a larger one is `too_large`. */
  readonly maxEditLength?: number;
}

/**
 * Opens a differ that finds previous versions in `versions` (by artifact id) and makes jsdiff unified diffs;
 * the object store is opened on the first diff, so a replay without versions opens nothing.
 */
export function openVersionDiffer(
  project: ProjectRef,
  // Only a previous version's content is read, so any record-shaped value with its hash will do.
  versions: ReadonlyMap<string, Pick<ArtifactRecord, 'contentHash'>>,
  options: VersionDifferOptions = {},
): VersionDiffer {
  const maxEditLength = options.maxEditLength ?? MAX_DIFF_EDIT_LENGTH;
  // A folder path opens its files store here, closed with the differ; a Project's store is its owner's.
  const opened = projectOf(project);
  let store: Promise<ObjectStore> | undefined;
  const cache = new Map<string, Promise<Uint8Array | ObjectStoreError>>();
  const bytesOf = (hash: string): Promise<Uint8Array | ObjectStoreError> => {
    let pending = cache.get(hash);
    if (pending === undefined) {
      store ??= opened.store.openObjects();
      pending = store.then((opened) => readVerified(opened, hash));
      cache.set(hash, pending);
    }
    return pending;
  };
  return {
    diffOf: async (artifact: VersionToDiff) => {
      const next = await bytesOf(artifact.contentHash);
      if (next instanceof ObjectStoreError) return unavailable(next, artifact.path);
      let previousBytes: Uint8Array = new Uint8Array();
      if (artifact.previous !== null) {
        const previous = versions.get(artifact.previous);
        if (previous === undefined) {
          const message = unknownPreviousMessage(artifact.path, artifact.previous);
          return { kind: 'unavailable', reason: 'unknown_previous', message };
        }
        const read = await bytesOf(previous.contentHash);
        if (read instanceof ObjectStoreError) return unavailable(read, artifact.path);
        previousBytes = read;
      }
      const oldText = decodeText(previousBytes);
      const newText = decodeText(next);
      if (oldText === undefined || newText === undefined) {
        return {
          kind: 'binary',
          message: `binary content (${previousBytes.byteLength} -> ${next.byteLength} bytes); no text diff`,
        };
      }
      const patch = createTwoFilesPatch(
        artifact.previous === null ? '/dev/null' : `a/${artifact.path}`,
        `b/${artifact.path}`,
        oldText,
        newText,
        artifact.previous ?? undefined,
        artifact.artifactId,
        // A diff from empty is linear, so only a diff against a previous text is bounded (quadratic otherwise).
        { headerOptions: FILE_HEADERS_ONLY, maxEditLength: oldText === '' ? Infinity : maxEditLength },
      );
      if (patch === undefined) {
        const message = `no diff for ${artifact.path}: more than ${String(maxEditLength)} lines changed, too large to diff; the line counts are in its record`;
        return { kind: 'unavailable', reason: 'too_large', message };
      }
      return { kind: 'text', patch };
    },
    close: async () => {
      if (store !== undefined) await (await store).close();
      if (typeof project === 'string') await opened.store.close();
    },
  };
}

/** Says that a previous version is in no run's records, and what to do. */
export function unknownPreviousMessage(path: string, artifactId: string): string {
  return `previous version ${artifactId} of ${path} is in no run's artifacts.jsonl; import the run that made it`;
}

async function readVerified(store: ObjectStore, hash: string): Promise<Uint8Array | ObjectStoreError> {
  try {
    return await store.get(hash);
  } catch (error) {
    if (error instanceof ObjectStoreError) return error;
    throw error;
  }
}

function unavailable(error: ObjectStoreError, path: string): ReplayDiff {
  const reason = error.code === 'missing_object' ? 'missing_object' : 'corrupt_object';
  return { kind: 'unavailable', reason, message: `no diff for ${path}: ${error.message}` };
}

function decodeText(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}
