import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import AWSAccount from 's3rver/lib/models/account.js';
import type { S3ClientConfig } from '@aws-sdk/client-s3';

/** A real S3-compatible server (s3rver, in this process) for tests, and clients set up for it. */
export interface S3Server {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
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
export async function startS3Server(): Promise<S3Server> {
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
  const endpoint = `http://127.0.0.1:${address.port}`;
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
    region: REGION,
    credentials,
    client,
    async createBucket(name) {
      admin ??= client();
      await admin.send(new CreateBucketCommand({ Bucket: name }));
    },
    async stop() {
      for (const made of clients.splice(0)) made.destroy();
      server.httpServer?.closeAllConnections();
      await server.close();
      AWSAccount.DUMMY_ACCOUNT.revokeAccessKey(credentials.accessKeyId);
      await rm(directory, { recursive: true, force: true });
    },
  };
}
