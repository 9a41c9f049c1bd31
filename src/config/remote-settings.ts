/**
 * `remote.s3.checksums`: the AWS SDK's `requestChecksumCalculation` and `responseChecksumValidation`. Since SDK
 * 3.729 they default to CRC32 checksums on every request, which some S3-compatible servers reject.
 */
export type RemoteChecksums = 'when_required' | 'when_supported';

/** The `remote.s3:` settings, defaults filled in: only needed for S3-compatible servers other than AWS. */
export interface RemoteS3Settings {
  /** `remote.s3.endpoint`: the server's http(s) URL; undefined for AWS itself. */
  readonly endpoint: string | undefined;
  /** `remote.s3.region`; undefined leaves it to the AWS SDK's own chain (AWS_REGION, the profile). */
  readonly region: string | undefined;
  /** `remote.s3.force_path_style`: `http://host/bucket/key` instead of `http://bucket.host/key` (default false). */
  readonly forcePathStyle: boolean;
  /** `remote.s3.checksums`; default `when_required` when an endpoint is set (S3-compatible servers), else `when_supported`. */
  readonly checksums: RemoteChecksums;
}

/** Where the remote keeps contents: an S3 bucket under a prefix (`''` for the bucket's top), or the catalog itself. */
export type RemoteObjectsSettings =
  { readonly kind: 's3'; readonly bucket: string; readonly prefix: string } | { readonly kind: 'catalog' };

/** The remote a project pushes to and reads from (spec storage.md Part 2, "Configuration"); never a credential. */
export interface RemoteSettings {
  /** The namespace inside a shared catalog: 1-128 characters of `[A-Za-z0-9._/-]`, not starting with `/` or `.`. */
  readonly project: string;
  /** A postgres:// or postgresql:// URL as written, query parameters (`sslmode`, ...) kept; show it only through `redactCatalogUrl`. */
  readonly catalog: string;
  readonly objects: RemoteObjectsSettings;
  readonly s3: RemoteS3Settings;
}
