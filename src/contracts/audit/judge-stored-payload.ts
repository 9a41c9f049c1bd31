import { ObjectStoreError } from '../../artifacts/index.js';
import type { ArtifactRecord, ObjectStore } from '../../artifacts/index.js';
import { isContractType } from '../types/index.js';
import { MAX_ARTIFACT_BYTES, validateArtifact } from '../types/index.js';

// A stored payload is pretty JSON of at most MAX_ARTIFACT_BYTES of compact JSON; anything far larger is not one.
const MAX_STORED_PAYLOAD_BYTES = 8 * MAX_ARTIFACT_BYTES;

/**
 * Why a submit record's payload is not a valid artifact today, or undefined when it is; `store` is the project's
 * objects (undefined when it has none).
 */
export async function judgeStoredPayload(
  store: ObjectStore | undefined,
  record: ArtifactRecord,
): Promise<string | undefined> {
  const type = record.metadata.contract;
  if (!isContractType(type)) {
    return type === undefined
      ? 'a submit record without metadata.contract; it names no artifact type'
      : `its type "${type}" is no longer a contract type`;
  }
  if (store === undefined)
    return `its object ${record.contentHash} is missing: the project has no object store (missing_object)`;
  const storedBytes = await store.size(record.contentHash);
  if (storedBytes !== undefined && storedBytes > MAX_STORED_PAYLOAD_BYTES) {
    return `its object ${record.contentHash} holds ${String(storedBytes)} bytes, more than any submitted payload; it was not read`;
  }
  let bytes: Uint8Array;
  try {
    bytes = await store.get(record.contentHash);
  } catch (error) {
    if (error instanceof ObjectStoreError) {
      return error.code === 'missing_object'
        ? `its object ${record.contentHash} is missing from the object store (missing_object)`
        : `its object ${record.contentHash} is corrupt: the stored bytes no longer hash to it (${error.code})`;
    }
    throw error;
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return `its stored payload ${record.contentHash} is not JSON text`;
  }
  const validation = validateArtifact(type, payload);
  if (validation.ok) return undefined;
  const shown = validation.errors.slice(0, 3).map((error) => error.message);
  const more = validation.errors.length - shown.length;
  return `its stored payload no longer validates as ${type}: ${shown.join('; ')}${more > 0 ? `; and ${String(more)} more` : ''}`;
}
