// s3rver ships no types; these cover what test/helpers/s3-server.ts uses.
declare module 's3rver' {
  import type { AddressInfo } from 'node:net';
  import type { Server } from 'node:http';

  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    resetOnClose?: boolean;
    vhostBuckets?: boolean;
    allowMismatchedSignatures?: boolean;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    readonly httpServer: Server | undefined;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }

  export default S3rver;
}

declare module 's3rver/lib/models/account.js' {
  class AWSAccount {
    createKeyPair(accessKeyId: string, secretAccessKey: string): void;
    revokeAccessKey(accessKeyId: string): void;
    static readonly DUMMY_ACCOUNT: AWSAccount;
  }

  export default AWSAccount;
}
