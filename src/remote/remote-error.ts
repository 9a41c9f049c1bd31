import { CodedError } from '../project/index.js';

/** Why the remote could not be used. */
export type RemoteErrorCode =
  /** The catalog (PostgreSQL) or the object store did not answer, or refused the connection or the login. */
  | 'unreachable'
  /** The catalog has no schema of ours yet, or an older one: `artifact-ingest remote init` makes it current. */
  | 'schema_missing'
  /** The catalog's schema is newer than this package knows: upgrade artifact-ingest. */
  | 'schema_too_new'
  /** `objects: s3://...` is configured, but the optional `@aws-sdk/client-s3` package is not installed. */
  | 's3_client_missing'
  /** `objects: s3://bucket/...` names a bucket the S3 server does not have: create it, or fix the config. */
  | 'bucket_missing'
  /** The remote answered with an error the product did not expect (a permission refused, a full disk). */
  | 'remote_failed';

/** A remote (catalog or objects) that could not be used, with what to do about it in the message. */
export class RemoteError extends CodedError<RemoteErrorCode> {
  override readonly name = 'RemoteError';
  /** Which part failed: the PostgreSQL catalog or the object store. */
  readonly part: 'catalog' | 'objects';

  constructor(fields: {
    code: RemoteErrorCode;
    part: 'catalog' | 'objects';
    message: string;
    cause?: unknown;
  }) {
    super(fields.code, fields.message, { cause: fields.cause });
    this.part = fields.part;
  }
}
