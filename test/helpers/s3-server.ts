import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';
import type { S3ClientConfig } from '@aws-sdk/client-s3';

/**
 * How the server answers a conditional write (`PUT` with `If-None-Match: *`). s3rver ignores the header and
 * overwrites; AWS S3 (since 2024), MinIO and R2 answer 412 when the key holds an object; some older servers answer
 * 501. `enforced` (the default) puts a small HTTP proxy in front of s3rver that answers as S3 does (it asks s3rver
 * for the key first); `ignored` is s3rver alone; `not_implemented` answers every conditional write 501.
 */
export type ConditionalWrites = 'enforced' | 'ignored' | 'not_implemented';

/** A real S3-compatible server (s3rver, in this process) for tests, and clients set up for it. */
export interface S3Server {
  /** `http://127.0.0.1:<port>`: where clients go (the proxy, unless conditional writes are `ignored`). */
  readonly endpoint: string;
  /** s3rver's own `http://127.0.0.1:<port>` (no proxy: conditional writes ignored). */
  readonly serverEndpoint: string;
  /** Requests of `method` that reached {@link endpoint} so far (counted by the proxy: 0 when there is none). */
  requestCount(method: string): number;
  readonly region: string;
  /**
   * A key pair made for this server alone, so a test can search output for the secret. s3rver refuses an unknown
   * access key id but does not check SigV4 signatures: a wrong secret with this key id is accepted.
   */
  readonly credentials: { readonly accessKeyId: string; readonly secretAccessKey: string };
  createBucket(name: string): Promise<void>;
  /**
   * An S3Client for this server: path-style addressing and checksums only when an operation requires them
   * (`WHEN_REQUIRED`: with the SDK's default, `WHEN_SUPPORTED`, s3rver stores a streamed upload's aws-chunked
   * framing as the object's bytes; test/remote/servers.test.ts shows it). `options` override any of it.
   */
  client(options?: S3ClientConfig): S3Client;
  /** Destroys the clients it made, stops the server and removes its folder. */
  stop(): Promise<void>;
}

const REGION = 'us-east-1';

/** Starts s3rver on 127.0.0.1 (a free port) over a new temp folder, silent. */
export async function startS3Server(
  options: { readonly conditionalWrites?: ConditionalWrites } = {},
): Promise<S3Server> {
  const directory = await mkdtemp(path.join(tmpdir(), 'artifact-ingest-s3-'));
  const credentials = {
    accessKeyId: `TEST${randomBytes(8).toString('hex').toUpperCase()}`,
    secretAccessKey: randomBytes(30).toString('base64url'),
  };
  AWSAccount.DUMMY_ACCOUNT.createKeyPair(credentials.accessKeyId, credentials.secretAccessKey);
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, vhostBuckets: false });
  let address;
  try {
    address = await server.run();
  } catch (error) {
    AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(credentials.accessKeyId);
    await rm(directory, { recursive: true, force: true });
    throw error;
  }
  const serverEndpoint = `http://127.0.0.1:${address.port}`;
  const mode = options.conditionalWrites ?? 'enforced';
  const proxy = mode === 'ignored' ? undefined : await startConditionalProxy(address.port, mode);
  const endpoint = proxy?.endpoint ?? serverEndpoint;
  const clients: S3Client[] = [];
  let admin: S3Client | undefined;
  const client = (options: S3ClientConfig = {}) => {
    // The settings that matter are explicit, so the machine's AWS_* environment and ~/.aws cannot change them;
    // nothing is set in process.env.
    const made = new S3Client({
      endpoint,
      region: REGION,
      credentials,
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...options,
    });
    clients.push(made);
    return made;
  };
  return {
    endpoint,
    serverEndpoint,
    requestCount: (method) => proxy?.counts.get(method) ?? 0,
    region: REGION,
    credentials,
    client,
    async createBucket(name) {
      admin ??= client();
      await admin.send(new CreateBucketCommand({ Bucket: name }));
    },
    async stop() {
      for (const made of clients.splice(0)) made.destroy();
      await proxy?.stop();
      server.httpServer?.closeAllConnections();
      await server.close();
      AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(credentials.accessKeyId);
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/** An S3 error answer, as the SDK parses it. */
function answerError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

/**
 * A proxy to s3rver on `port` that answers conditional writes as S3 does (`enforced`: 412 PreconditionFailed when
 * the key holds an object, found with a HEAD to s3rver) or as a server without them does (`not_implemented`: 501);
 * every other request passes through untouched.
 */
async function startConditionalProxy(
  port: number,
  mode: Exclude<ConditionalWrites, 'ignored'>,
): Promise<{ readonly endpoint: string; readonly counts: Map<string, number>; stop(): Promise<void> }> {
  const counts = new Map<string, number>();
  const forward = (request: IncomingMessage, response: ServerResponse): void => {
    const headers = { ...request.headers };
    delete headers.expect;
    const upstream = httpRequest(
      { host: '127.0.0.1', port, method: request.method, path: request.url, headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  };
  const proxy = createServer((request, response) => {
    counts.set(request.method ?? '', (counts.get(request.method ?? '') ?? 0) + 1);
    if (request.method !== 'PUT' || request.headers['if-none-match'] !== '*') {
      forward(request, response);
      return;
    }
    if (mode === 'not_implemented') {
      request.resume();
      answerError(
        response,
        501,
        'NotImplemented',
        'A header you provided implies functionality that is not implemented',
      );
      return;
    }
    const bodyHeaders = new Set([
      'content-length',
      'content-type',
      'expect',
      'if-none-match',
      'transfer-encoding',
    ]);
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name]) => !bodyHeaders.has(name)),
    );
    const head = httpRequest(
      { host: '127.0.0.1', port, method: 'HEAD', path: request.url?.split('?')[0], headers },
      (answer) => {
        answer.resume();
        if (answer.statusCode === 200) {
          request.resume();
          answerError(
            response,
            412,
            'PreconditionFailed',
            'At least one of the pre-conditions you specified did not hold',
          );
        } else forward(request, response);
      },
    );
    head.on('error', () => response.destroy());
    head.end();
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${String((proxy.address() as AddressInfo).port)}`,
    counts,
    stop: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => {
        proxy.close(() => {
          resolve();
        });
      });
    },
  };
}
