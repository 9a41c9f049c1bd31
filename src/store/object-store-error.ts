/** Why an object store call failed. */
export type ObjectStoreErrorCode = 'malformed_hash' | 'missing_object' | 'corrupt_object';

/** A failed object store call: a malformed hash (misuse), a missing object, or one whose bytes no longer match its hash. */
export class ObjectStoreError extends Error {
  override readonly name = 'ObjectStoreError';
  /** What went wrong. */
  readonly code: ObjectStoreErrorCode;
  /** The hash the call was about, as the caller passed it. */
  readonly hash: string;

  constructor(fields: { code: ObjectStoreErrorCode; hash: string; message: string; cause?: unknown }) {
    super(fields.message, { cause: fields.cause });
    this.code = fields.code;
    this.hash = fields.hash;
  }
}
