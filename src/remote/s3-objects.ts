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

/** What an S3 answer (an SDK error) means to the backend. */
type S3Failure =
  /** No object at the key (a GET's NoSuchKey, a HEAD's bare 404). */
  | 'no_key'
  /** The bucket does not exist. */
  | 'no_bucket'
  /** A conditional write found an object at the key (412). */
  | 'exists'
  /** A conditional write raced another one to the same key (409); the other one's bytes are the same content. */
  | 'conflict'
  /** The server does not implement what was asked (a conditional write, on some S3-compatible servers). */
  | 'not_implemented'
  /** The credentials were refused, or the bucket policy does not grant the action (403). */
  | 'denied'
  /** Any other answer of the server. */
  | 'answered'
  /** No answer at all: the network, a refused connection, a timeout. */
  | 'no_answer';

function s3FailureOf(error: unknown): S3Failure {
  const { name, $metadata } = (error ?? {}) as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  if (name === 'NoSuchBucket') return 'no_bucket';
  if (name === 'NoSuchKey' || name === 'NotFound' || status === 404) return 'no_key';
  if (name === 'PreconditionFailed' || status === 412) return 'exists';
  if (name === 'ConditionalRequestConflict' || status === 409) return 'conflict';
  if (name === 'NotImplemented' || status === 501) return 'not_implemented';
  if (
    status === 403 ||
    name === 'AccessDenied' ||
    name === 'InvalidAccessKeyId' ||
    name === 'SignatureDoesNotMatch'
  )
    return 'denied';
  return status === undefined ? 'no_answer' : 'answered';
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
  const where = options.endpoint === undefined ? 'AWS S3' : options.endpoint;
  const failed = (what: string, error: unknown): RemoteError => {
    // The server's words, then its code: `AccessKeyId: The ...` would read as a secret assignment and be redacted.
    const said = `${(error as Error).message} (${(error as Error).name})`;
    const failure = s3FailureOf(error);
    if (failure === 'no_bucket') {
      return new RemoteError({
        code: 'bucket_missing',
        part: 'objects',
        message: `the bucket ${options.bucket} does not exist at ${where}; create it (docs/remote.md shows how), or fix remote.objects`,
        cause: error,
      });
    }
    return new RemoteError({
      code: failure === 'no_answer' ? 'unreachable' : 'remote_failed',
      part: 'objects',
      message:
        failure === 'denied'
          ? `the object store ${location} refused to ${what} (${said}); check the credentials (AWS_ACCESS_KEY_ID, AWS_PROFILE, ...) and that the bucket policy grants s3:GetObject, s3:PutObject and s3:ListBucket on the prefix (docs/remote.md)`
          : `the object store ${location} could not ${what}: ${said}`,
      cause: error,
    });
  };

  /** `body`'s answer; `missing` when the key holds nothing (never for a missing bucket); a RemoteError otherwise. */
  const call = async <T>(what: string, body: () => Promise<T>, missing?: { value: T }): Promise<T> => {
    try {
      return await body();
    } catch (error) {
      if (missing !== undefined && s3FailureOf(error) === 'no_key') return missing.value;
      throw failed(what, error);
    }
  };
  // Cleared the first time the server says it does not implement a conditional write: a look-up, then a write.
  let conditionalWrites = true;
  const putObject = (hex: string, bytes: Uint8Array, onlyNew: boolean) =>
    client.send(
      new s3.PutObjectCommand({
        Bucket: options.bucket,
        Key: keyOf(hex),
        Body: bytes,
        ContentLength: bytes.byteLength,
        ContentType: 'application/octet-stream',
        ...(onlyNew ? { IfNoneMatch: '*' } : {}),
      }),
    );
  /** A write after a look-up (two requests), for a server without conditional writes. */
  const lookThenPut = async (hex: string, bytes: Uint8Array): Promise<boolean> => {
    if ((await size(hex)) !== undefined) return false;
    await call(`store object ${hex}`, () => putObject(hex, bytes, false));
    return true;
  };
  const size = (hex: string): Promise<number | undefined> =>
    call(
      `look up object ${hex}`,
      async () =>
        (await client.send(new s3.HeadObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) })))
          .ContentLength ?? 0,
      { value: undefined },
    );

  const listNames = async (prefix: string, delimited: boolean): Promise<string[]> => {
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await call(`list ${prefix}`, () =>
        client.send(
          new s3.ListObjectsV2Command({
            Bucket: options.bucket,
            Prefix: prefix,
            ...(delimited ? { Delimiter: '/' } : {}),
            ...(token === undefined ? {} : { ContinuationToken: token }),
          }),
        ),
      );
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

  /**
   * The 2-hex folders of `sha256/`: one listing with a delimiter, never more than 256 names and so never a second
   * page (s3rver cannot make a continuation token on Node 17+, and a page of one key would need one).
   */
  const folders = () => listNames(`${base}/`, true);

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
        { value: undefined },
      ),
    size,
    put: async (hex, bytes) => {
      await call(`store object ${hex}`, () => putObject(hex, bytes, false));
    },
    putNew: async (hex, bytes) => {
      if (!conditionalWrites) return lookThenPut(hex, bytes);
      try {
        await putObject(hex, bytes, true);
        return true;
      } catch (error) {
        const failure = s3FailureOf(error);
        if (failure === 'exists') return false;
        if (failure === 'not_implemented') {
          conditionalWrites = false;
          return lookThenPut(hex, bytes);
        }
        if (failure !== 'conflict') throw failed(`store object ${hex}`, error);
        // 409: another writer is storing the same key, so the same content by its name: written again, plainly.
        await call(`store object ${hex}`, () => putObject(hex, bytes, false));
        return true;
      }
    },
    remove: async (hex) => {
      if ((await size(hex)) === undefined) return false;
      await call(`remove object ${hex}`, () =>
        client.send(new s3.DeleteObjectCommand({ Bucket: options.bucket, Key: keyOf(hex) })),
      );
      return true;
    },
    list: (below) => (below.length === 0 ? folders() : listNames(`${base}/${below[0] ?? ''}/`, true)),
    isEmpty: async () => (await folders()).length === 0,
    probe: async () => {
      await folders();
    },
    close: () => {
      client.destroy();
      return Promise.resolve();
    },
  };
}
