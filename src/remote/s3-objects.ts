import type * as S3 from '@aws-sdk/client-s3';
import { lazyModule } from '../project/index.js';
import type { ObjectBackend } from './object-backend.js';
import { RemoteError } from './remote-error.js';

type S3Module = typeof S3;

/** The optional peer dependency, loaded the first time an `s3://` object store is opened (D111). */
const loadS3 = lazyModule<S3Module>('@aws-sdk/client-s3');

/** Where an `s3://` object store is and how its client talks to it. */
export interface S3ObjectsOptions {
  readonly bucket: string;
  /** The key prefix objects go under (no leading or trailing slash; '' for the bucket's top). */
  readonly prefix: string;
  readonly endpoint: string | undefined;
  readonly region: string | undefined;
  readonly forcePathStyle: boolean;
  /** The SDK's requestChecksumCalculation/responseChecksumValidation (CRC32 by default since 3.729). */
  readonly checksums: 'when_required' | 'when_supported';
}

/** The client module, or `s3_client_missing` saying how to install it. */
function s3Module(): S3Module {
  try {
    return loadS3();
  } catch (error) {
    throw new RemoteError({
      code: 's3_client_missing',
      part: 'objects',
      message:
        "remote.objects is an s3:// URL, but the AWS SDK's S3 client is not installed; install it with 'npm install @aws-sdk/client-s3' (or set remote.objects: catalog)",
      cause: error,
    });
  }
}

/** Whether an SDK error says the key is not there. */
function isMissing(error: unknown): boolean {
  const { name, $metadata } = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

/**
 * `objects: s3://bucket/prefix`: each content's raw bytes at `<prefix>/sha256/<2 hex>/<62 hex>` in an S3-compatible
 * bucket (server-side encryption is the bucket's business). Credentials come from the SDK's default chain (the
 * environment, a profile, an instance role), never from the config.
 */
export function s3Objects(options: S3ObjectsOptions): ObjectBackend {
  const s3 = s3Module();
  const checksum = options.checksums === 'when_required' ? 'WHEN_REQUIRED' : 'WHEN_SUPPORTED';
  const client = new s3.S3Client({
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    region: options.region ?? process.env['AWS_REGION'] ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle,
    requestChecksumCalculation: checksum,
    responseChecksumValidation: checksum,
    // A machine with no network: fail in seconds, not after the SDK's minutes of retries.
    maxAttempts: 3,
  });
  const base = options.prefix === '' ? 'sha256' : `${options.prefix}/sha256`;
  const keyOf = (hex: string): string => `${base}/${hex.slice(0, 2)}/${hex.slice(2)}`;
  const location = `s3://${options.bucket}${options.prefix === '' ? '' : `/${options.prefix}`}`;
  const failed = (what: string, error: unknown): RemoteError =>
    new RemoteError({
      code: 'unreachable',
      part: 'objects',
      message: `the object store ${location} could not ${what}: ${(error as Error).name}: ${(error as Error).message}`,
      cause: error,
    });

  const call = async <T>(what: string, body: () => Promise<T>, missing: T): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      if (isMissing(error)) return missing;
      throw failed(what, error);
    }
  };

  const listNames = async (prefix: string, delimited: boolean): Promise<string[]> => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await call(
        `list ${prefix}`,
        () =>
          client.send(
            new s3.ListObjectsV2Command({
              Bucket: options.bucket,
              Prefix: prefix,
              ...(delimited ? { Delimiter: '/' } : {}),
              ...(token === undefined ? {} : { ContinuationToken: token }),
            }),
          ),
        undefined,
      );
      if (page === undefined) return names;
      for (const folder of page.CommonPrefixes ?? []) {
        const name = folder.Prefix?.slice(prefix.length).replace(/\/$/, '');
        if (name !== undefined && name !== '') names.push(name);
      }
      for (const object of page.Contents ?? []) {
        const name = object.Key?.slice(prefix.length);
        if (name !== undefined && name !== '' && !name.includes('/')) names.push(name);
      }
      token = page.IsTruncated === true ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return names.sort();
  };

  return {
    location,
    get: (hex) =>
      call(
        `read object ${hex}`,
        async () => {
          const answer = await client.send(
            new s3.GetObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) }),
          );
          return answer.Body === undefined ? new Uint8Array() : await answer.Body.transformToByteArray();
        },
        undefined,
      ),
    size: (hex) =>
      call(
        `look up object ${hex}`,
        async () =>
          (await client.send(new s3.HeadObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) })))
            .ContentLength ?? 0,
        undefined,
      ),
    put: async (hex, bytes) => {
      await call(
        `store object ${hex}`,
        () =>
          client.send(
            new s3.PutObjectCommand({
              Bucket: options.bucket,
              Key: keyOf(hex),
              Body: bytes,
              ContentLength: bytes.byteLength,
              ContentType: 'application/octet-stream',
            }),
          ),
        undefined,
      );
    },
    remove: async (hex) => {
      const there = await call(
        `look up object ${hex}`,
        async () => {
          await client.send(new s3.HeadObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) }));
          return true;
        },
        false,
      );
      if (!there) return false;
      await call(
        `remove object ${hex}`,
        () => client.send(new s3.DeleteObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) })),
        undefined,
      );
      return true;
    },
    list: (below) => listNames(`${base}/${below.length === 0 ? '' : `${below[0] ?? ''}/`}`, true),
    isEmpty: async () => {
      const page = await call(
        'list its objects',
        () =>
          client.send(
            new s3.ListObjectsV2Command({ Bucket: options.bucket, Prefix: `${base}/`, MaxKeys: 1 }),
          ),
        undefined,
      );
      return (page?.KeyCount ?? 0) === 0;
    },
    close: () => {
      client.destroy();
      return Promise.resolve();
    },
  };
}
