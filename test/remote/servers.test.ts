import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startS3Server } from '../helpers/s3-server.js';
import { describeWithPostgres, usePostgres } from '../helpers/use-postgres.js';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Server } from '../helpers/s3-server.js';

// The real servers the remote's tests run against (issue 26): the run's PostgreSQL and an in-process s3rver.

describeWithPostgres('the test run’s PostgreSQL', (postgres) => {
  it('round-trips a row through pg in a fresh database', async () => {
    const client = new pg.Client({ connectionString: await postgres.createDatabase() });
    await client.connect();
    try {
      await client.query('CREATE TABLE runs (run_id text PRIMARY KEY, record jsonb NOT NULL)');
      await client.query('INSERT INTO runs VALUES ($1, $2)', ['run-1', { step: 1, path: 'docs/a.md' }]);
      const { rows } = await client.query('SELECT run_id, record FROM runs');
      expect(rows).toEqual([{ run_id: 'run-1', record: { step: 1, path: 'docs/a.md' } }]);
    } finally {
      await client.end();
    }
  });

  it('gives two test files databases that never see each other', async () => {
    // Two usePostgres() handles stand for two test files: each creates its databases on the same server.
    const files = [usePostgres(), usePostgres()];
    const urls: string[] = [];
    for (const file of files) {
      if (file.kind !== 'run') throw new Error('the run has a PostgreSQL here');
      urls.push(await file.postgres.createDatabase());
    }
    expect(new Set(urls.map((url) => new URL(url).pathname)).size).toBe(2);
    const [first, second] = urls.map((url) => new pg.Client({ connectionString: url }));
    await first!.connect();
    await second!.connect();
    try {
      await first!.query('CREATE TABLE only_here (id int); INSERT INTO only_here VALUES (1)');
      const { rows } = await second!.query("SELECT to_regclass('only_here') AS found");
      expect(rows).toEqual([{ found: null }]);
      await expect(second!.query('SELECT * FROM only_here')).rejects.toThrow(
        'relation "only_here" does not exist',
      );
    } finally {
      await first!.end();
      await second!.end();
    }
    for (const file of files) if (file.kind === 'run') await file.dropDatabases();
  });

  it('drops a suite’s databases at its end, and names one still in use instead of dropping it', async () => {
    const file = usePostgres();
    if (file.kind !== 'run') throw new Error('the run has a PostgreSQL here');
    const url = await file.postgres.createDatabase();
    const name = decodeURIComponent(new URL(url).pathname.slice(1));
    const leftOpen = new pg.Client({ connectionString: url });
    await leftOpen.connect();
    await expect(file.dropDatabases(0)).rejects.toThrow(
      `could not drop the test database ${name} (1 session still connected) on ${file.postgres.url}: close every pg Pool and Client on it before the suite ends`,
    );
    await leftOpen.end();
    await file.dropDatabases();
    const admin = new pg.Client({ connectionString: file.postgres.url });
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT datname FROM pg_database WHERE datname = $1', [name]);
      expect(rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});

describe('s3rver through the S3 client', () => {
  let s3: S3Server;
  let client: S3Client;
  const bucket = 'artifacts';

  beforeAll(async () => {
    s3 = await startS3Server();
    await s3.createBucket(bucket);
    client = s3.client();
  });

  afterAll(async () => {
    await s3.stop();
  });

  it('puts, heads, lists, gets and deletes an object', async () => {
    const key = 'prefix/sha256/ab/cdef';
    const content = Buffer.from('# a document\n\nwith bytes \u00e9\u0000\xff\n', 'latin1');
    await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: content }));

    const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    expect(head.ContentLength).toBe(content.length);

    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'prefix/sha256/' }));
    expect(listed.Contents?.map((object) => [object.Key, object.Size])).toEqual([[key, content.length]]);

    const got = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(content);

    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    await expect(client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).rejects.toBeInstanceOf(
      NotFound,
    );
    await expect(client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).rejects.toBeInstanceOf(
      NoSuchKey,
    );
  });

  // s3rver 3.7.1 checks that the access key id exists, not a SigV4 signature: a test of the remote cannot rely
  // on it to refuse a wrong secret.
  it('refuses an unknown access key id, and takes any secret with a known one', async () => {
    const put = (client: S3Client) =>
      client.send(new PutObjectCommand({ Bucket: bucket, Key: 'signed', Body: Buffer.from('x') }));
    await expect(
      put(s3.client({ credentials: { accessKeyId: 'AKIAUNKNOWN', secretAccessKey: 'x' }, maxAttempts: 1 })),
    ).rejects.toMatchObject({ name: 'InvalidAccessKeyId' });
    const wrongSecret = { accessKeyId: s3.credentials.accessKeyId, secretAccessKey: 'not-the-secret' };
    await expect(put(s3.client({ credentials: wrongSecret, maxAttempts: 1 }))).resolves.toMatchObject({
      $metadata: { httpStatusCode: 200 },
    });
  });

  // The AWS SDK computes CRC32 checksums by default since 3.729 (requestChecksumCalculation and
  // responseChecksumValidation 'WHEN_SUPPORTED'). Set explicitly here so the machine's AWS_* settings cannot
  // change what is measured. What s3rver 3.7.1 does with them, which docs/remote.md cites:
  describe('the SDK’s default checksums (WHEN_SUPPORTED) against s3rver', () => {
    const payload = Buffer.from('hello world, streamed\n');
    const supported = () =>
      s3.client({
        requestChecksumCalculation: 'WHEN_SUPPORTED',
        responseChecksumValidation: 'WHEN_SUPPORTED',
      });
    const stream = () => Readable.from([payload]);
    const read = async (key: string) =>
      Buffer.from(
        await (
          await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }))
        ).Body!.transformToByteArray(),
      );

    it('keeps a Buffer upload intact: its CRC32 travels in a header s3rver ignores', async () => {
      const sent = recordRequestHeaders(supported());
      await sent.client.send(new PutObjectCommand({ Bucket: bucket, Key: 'buffer', Body: payload }));
      expect(sent.headers.at(-1)).toMatchObject({ 'x-amz-checksum-crc32': crc32Base64(payload) });
      expect(await read('buffer')).toEqual(payload);
    });

    it('stores a streamed upload’s aws-chunked framing as the object’s bytes, and reports success', async () => {
      const sent = recordRequestHeaders(supported());
      await sent.client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'stream',
          Body: stream(),
          ContentLength: payload.length,
        }),
      );
      expect(sent.headers.at(-1)).toMatchObject({
        'content-encoding': 'aws-chunked',
        'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
        'x-amz-trailer': 'x-amz-checksum-crc32',
      });
      // The chunk size in hex, the data, a last empty chunk and the checksum trailer: 64 bytes instead of 22.
      const stored = await read('stream');
      expect(stored.toString('latin1')).toBe(
        `16\r\n${payload.toString('latin1')}\r\n0\r\nx-amz-checksum-crc32:${crc32Base64(payload)}\r\n\r\n`,
      );
      expect(stored.length).toBe(64);
    });

    it('validates nothing on GetObject: it asks for checksums and s3rver returns none', async () => {
      const sent = recordRequestHeaders(supported());
      const got = await sent.client.send(new GetObjectCommand({ Bucket: bucket, Key: 'stream' }));
      expect(sent.headers.at(-1)).toMatchObject({ 'x-amz-checksum-mode': 'ENABLED' });
      expect(Object.keys(sent.responses.at(-1)!).filter((name) => name.startsWith('x-amz-checksum'))).toEqual(
        [],
      );
      // The corrupt object of the test above comes back without an error.
      expect((await got.Body!.transformToByteArray()).length).toBe(64);
    });

    it('with WHEN_REQUIRED (what the test client uses) a streamed upload is stored intact', async () => {
      const sent = recordRequestHeaders(s3.client());
      await sent.client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: 'stream-required',
          Body: stream(),
          ContentLength: payload.length,
        }),
      );
      expect(sent.headers.at(-1)).not.toHaveProperty('content-encoding');
      expect(await read('stream-required')).toEqual(payload);
    });
  });
});

/** A CRC32 as S3 headers carry it: the 4 bytes big-endian, in base64. */
function crc32Base64(content: Buffer): string {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(crc32(content));
  return bytes.toString('base64');
}

/** The client, recording the headers of each request it sends (after signing) and of each response. */
function recordRequestHeaders(client: S3Client): {
  client: S3Client;
  headers: Record<string, string>[];
  responses: Record<string, string>[];
} {
  const headers: Record<string, string>[] = [];
  const responses: Record<string, string>[] = [];
  client.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { headers?: Record<string, string> };
      headers.push({ ...request.headers });
      const result = await next(args);
      const response = result.response as { headers?: Record<string, string> };
      responses.push({ ...response.headers });
      return result;
    },
    { step: 'deserialize', priority: 'low', name: 'recordRequestHeaders' },
  );
  return { client, headers, responses };
}
