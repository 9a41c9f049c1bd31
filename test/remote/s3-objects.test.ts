import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteStatus } from '../../src/fleet/index.js';
import { openRemoteStore, RemoteError } from '../../src/remote/index.js';
import type { RemoteStoreSettings } from '../../src/remote/index.js';
import { contentHashOf, openProject } from '../../src/store/index.js';
import { startS3Server } from '../helpers/s3-server.js';
import type { ConditionalWrites, S3Server } from '../helpers/s3-server.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { freshCatalog, remoteStoreOf, s3Settings, withS3Credentials } from './remote-test-stores.js';

// The S3 object backend against servers that answer conditional writes as S3 does, ignore them (s3rver alone),
// or do not implement them; and against a bucket that is not there or credentials that are refused (issue 26).

const modes: readonly ConditionalWrites[] = ['enforced', 'ignored', 'not_implemented'];

/** The object's key in the bucket, as the backend lays it out. */
function keyOf(settings: RemoteStoreSettings, hash: string): string {
  if (settings.objects.kind !== 's3') throw new Error('s3 settings expected');
  const hex = hash.slice('sha256:'.length);
  return `${settings.objects.prefix}/sha256/${hex.slice(0, 2)}/${hex.slice(2)}`;
}

describeWithPostgres('the S3 object backend', (postgres) => {
  let catalog: string;
  const servers = new Map<ConditionalWrites, S3Server>();
  let root: string;

  beforeAll(async () => {
    catalog = await freshCatalog(postgres);
    for (const mode of modes) {
      const server = await startS3Server({ conditionalWrites: mode });
      // One key pair per server: the environment holds the last one, so every server accepts the others' id.
      servers.set(mode, server);
      await server.createBucket('objects');
    }
    root = await mkdtemp(path.join(tmpdir(), 'ai-s3-objects-'));
  });

  afterAll(async () => {
    for (const server of servers.values()) await server.stop();
    await rm(root, { recursive: true, force: true });
  });

  const serverOf = (mode: ConditionalWrites): S3Server => {
    const server = servers.get(mode);
    if (server === undefined) throw new Error(`no ${mode} server`);
    withS3Credentials(server);
    return server;
  };

  describe.each(modes)('with conditional writes %s', (mode) => {
    it('stores a new object, leaves one already there alone, and heals one holding other bytes', async () => {
      const server = serverOf(mode);
      const settings = s3Settings(catalog, server, 'objects');
      const store = remoteStoreOf(settings);
      try {
        const objects = await store.openObjects();
        const bytes = Buffer.from(`a content for ${mode}`);
        const first = await objects.put(bytes);
        expect(first.stored).toBe(true);
        // A server that ignores the condition overwrites the same bytes and the backend cannot tell: stored again.
        expect((await objects.put(bytes)).stored).toBe(mode === 'ignored');
        expect(Buffer.from(await objects.get(first.hash)).equals(bytes)).toBe(true);

        const raw = server.client({ endpoint: server.serverEndpoint });
        await raw.send(
          new PutObjectCommand({ Bucket: 'objects', Key: keyOf(settings, first.hash), Body: 'rotten bytes' }),
        );
        await expect(objects.get(first.hash)).rejects.toThrow(first.hash.slice('sha256:'.length));
        expect((await objects.put(bytes)).stored).toBe(true);
        const healed = await raw.send(
          new GetObjectCommand({ Bucket: 'objects', Key: keyOf(settings, first.hash) }),
        );
        expect(Buffer.from(await healed.Body!.transformToByteArray()).equals(bytes)).toBe(true);
        await objects.close();
      } finally {
        await store.close();
      }
    });
  });

  it('stores a new object with one conditional PUT and no look-up first', async () => {
    const server = serverOf('enforced');
    const store = remoteStoreOf(s3Settings(catalog, server, 'objects'));
    try {
      const objects = await store.openObjects();
      const contents = Array.from({ length: 20 }, (_, index) => Buffer.from(`object ${String(index)}`));
      const heads = server.requestCount('HEAD');
      const puts = server.requestCount('PUT');
      const results = await objects.putAll(contents);
      expect(results.every((result) => result.stored)).toBe(true);
      expect(server.requestCount('PUT') - puts).toBe(20);
      expect(server.requestCount('HEAD') - heads).toBe(0);
      // Put again: each answered 412, then read and compared (a GET), nothing written.
      const gets = server.requestCount('GET');
      expect((await objects.putAll(contents)).some((result) => result.stored)).toBe(false);
      expect(server.requestCount('PUT') - puts).toBe(40);
      expect(server.requestCount('GET') - gets).toBe(20);
      await objects.close();
    } finally {
      await store.close();
    }
  });

  it('falls back to a look-up before each write on a server that does not implement conditional writes', async () => {
    const server = serverOf('not_implemented');
    const store = remoteStoreOf(s3Settings(catalog, server, 'objects'));
    try {
      const objects = await store.openObjects();
      const contents = Array.from({ length: 10 }, (_, index) => Buffer.from(`fallback ${String(index)}`));
      const [puts, heads] = [server.requestCount('PUT'), server.requestCount('HEAD')];
      for (const content of contents) expect((await objects.put(content)).stored).toBe(true);
      // The first write learned the server's answer (one 501); each write is then a HEAD and a plain PUT.
      expect(server.requestCount('PUT') - puts).toBe(11);
      expect(server.requestCount('HEAD') - heads).toBe(10);
      for (const content of contents) {
        expect(Buffer.from(await objects.get(contentHashOf(content))).equals(content)).toBe(true);
      }
      await objects.close();
    } finally {
      await store.close();
    }
  });

  it('refuses a bucket that is not there at open, in status and on a write, naming it (bucket_missing)', async () => {
    const server = serverOf('enforced');
    const settings = s3Settings(catalog, server, 'no-such-bucket');
    const opened = openRemoteStore(settings);
    await expect(opened).rejects.toThrow(RemoteError);
    await expect(opened).rejects.toMatchObject({
      code: 'bucket_missing',
      part: 'objects',
      message: expect.stringContaining(
        'the bucket no-such-bucket does not exist at http://127.0.0.1:',
      ) as unknown,
    });

    const status = await remoteStatus(openProject(root), settings);
    expect(status.catalog.reachable).toBe(true);
    expect(status.objects).toMatchObject({ reachable: false, problem: { code: 'bucket_missing' } });
    expect(status.usable).toBe(false);

    // A store opened without the checks still refuses the write: never a silent success.
    const store = remoteStoreOf(settings);
    try {
      const objects = await store.openObjects();
      await expect(objects.put(Buffer.from('lost?'))).rejects.toMatchObject({ code: 'bucket_missing' });
      await objects.close();
    } finally {
      await store.close();
    }
  });

  it('says the credentials were refused, never the secret (remote_failed)', async () => {
    const server = serverOf('enforced');
    const settings = s3Settings(catalog, server, 'objects');
    const secret = 'not-the-servers-secret-0123456789';
    const saved = { id: process.env['AWS_ACCESS_KEY_ID'], secret: process.env['AWS_SECRET_ACCESS_KEY'] };
    process.env['AWS_ACCESS_KEY_ID'] = 'AKIAUNKNOWNKEY000000';
    process.env['AWS_SECRET_ACCESS_KEY'] = secret;
    try {
      const opened = openRemoteStore(settings);
      await expect(opened).rejects.toMatchObject({
        code: 'remote_failed',
        part: 'objects',
        message: expect.stringContaining('check the credentials') as unknown,
      });
      const error = await opened.catch((caught: unknown) => caught);
      // The server's words, then its code (`AccessKeyId: The ...` would read as a secret assignment to the CLI).
      expect((error as Error).message).toContain(
        'you provided does not exist in our records. (InvalidAccessKeyId)',
      );
      expect(JSON.stringify({ message: (error as Error).message })).not.toContain(secret);
      const status = await remoteStatus(openProject(root), settings);
      expect(status.objects).toMatchObject({ reachable: false, problem: { code: 'remote_failed' } });
      expect(JSON.stringify(status)).not.toContain(secret);
    } finally {
      process.env['AWS_ACCESS_KEY_ID'] = saved.id;
      process.env['AWS_SECRET_ACCESS_KEY'] = saved.secret;
    }
  });

  it('says unreachable for an object store that does not answer', async () => {
    const server = serverOf('enforced');
    const settings = s3Settings(catalog, server, 'objects');
    const closed = { ...settings, s3: { ...settings.s3, endpoint: 'http://127.0.0.1:9' } };
    await expect(openRemoteStore(closed)).rejects.toMatchObject({ code: 'unreachable', part: 'objects' });
  });
});
