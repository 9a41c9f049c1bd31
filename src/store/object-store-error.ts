import { CodedError } from '../project/index.js';
/** Why an object store call failed. */
export type ObjectStoreErrorCode = 'malformed_hash' | 'missing_object' | 'corrupt_object';

/** A failed object store call: a malformed hash (misuse), a missing object, or one whose bytes no longer match its hash. */
export class ObjectStoreError extends CodedError<ObjectStoreErrorCode> {
  override readonly name = 'ObjectStoreError';
  /** The hash the call was about, as the caller passed it. */
  readonly hash: string;
  /** For `corrupt_object`: the hash the bytes read or streamed have instead. */
  readonly actual?: string;

  constructor(fields: {
    code: ObjectStoreErrorCode;
    hash: string;
    message: string;
    actual?: string;
    cause?: unknown;
  }) {
    super(fields.code, fields.message, { cause: fields.cause });
    this.hash = fields.hash;
    if (fields.actual !== undefined) this.actual = fields.actual;
  }
}

/** `malformed_hash`: a hash that is not `sha256:` and 64 lowercase hex digits (misuse). */
export function malformedHashError(hash: string): ObjectStoreError {
  return new ObjectStoreError({
    code: 'malformed_hash',
    hash,
    message: `content hash ${JSON.stringify(hash)} is malformed; expected sha256: followed by 64 lowercase hex digits`,
  });
}

/**
 * The bytes read for `hash` once checked: `missing_object` when there were none (`where` names the store),
 * `corrupt_object` when they hash to `actual` instead.
 */
export function checkedObject(
  hash: string,
  bytes: Uint8Array | undefined,
  actual: string | undefined,
  where: string,
): Uint8Array {
  if (bytes === undefined) {
    throw new ObjectStoreError({
      code: 'missing_object',
      hash,
      message: `object ${hash} is not in ${where}; restore it from a bundle or re-run the step that made it`,
    });
  }
  if (actual !== hash) {
    throw new ObjectStoreError({
      code: 'corrupt_object',
      hash,
      ...(actual === undefined ? {} : { actual }),
      message: `object ${hash} is corrupt: its bytes hash to ${String(actual)}; restore it from a bundle or put the original content again`,
    });
  }
  return bytes;
}

/** `corrupt_object` for streamed bytes that did not hash to the name they were sent under: nothing was stored. */
export function streamedMismatchError(hash: string, bytes: number, actual: string): ObjectStoreError {
  return new ObjectStoreError({
    code: 'corrupt_object',
    hash,
    actual,
    message: `the ${String(bytes)} bytes streamed for object ${hash} hash to ${actual}; nothing was stored, so store the original content`,
  });
}
