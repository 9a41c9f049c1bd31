import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { listPending, markPending } from '../../src/fleet/index.js';
import { parseRunId, PROJECT_CONFIG_FILE } from '../../src/project/index.js';
import { openProject } from '../../src/store/index.js';
import { runCli } from '../helpers/run-cli.js';
import { startS3Server } from '../helpers/s3-server.js';
import type { S3Server } from '../helpers/s3-server.js';
import { treeDigest } from '../helpers/tree-digest.js';
import { describeWithPostgres } from '../helpers/use-postgres.js';
import { withS3Credentials } from '../remote/remote-test-stores.js';

// The fleet commands with objects in an S3-compatible server (issue 26): the config file names the bucket and the
// endpoint, the credentials come from the environment; push, then fleet reads from a folder holding only the
// config; and a bucket that is not there, refused before anything is pushed.

let root = '';
let s3: S3Server;

/** The config file of a folder whose remote keeps objects in `bucket` of the test's s3rver. */
function s3Config(catalog: string, bucket: string): string {
  return [
    'remote:',
    '  project: acme/s3-fleet',
    `  catalog: ${catalog}`,
    `  objects: s3://${bucket}/artifact-ingest`,
    '  s3:',
    `    endpoint: ${s3.endpoint}`,
    '    region: us-east-1',
    '    force_path_style: true',
    '    checksums: when_required',
    '',
  ].join('\n');
}

async function folder(name: string, config: string): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, PROJECT_CONFIG_FILE), config);
  return dir;
}

/** The demo run in folder `name`, then `config` as its config and `remote init` (the catalog's schema made). */
async function demoWithRemote(name: string, config: string): Promise<{ dir: string; runId: string }> {
  const dir = path.join(root, name);
  const demo = await runCli(['demo', '--dir', dir, '--json'], { cwd: root });
  expect(demo.code, demo.stderr).toBe(0);
  await writeFile(path.join(dir, PROJECT_CONFIG_FILE), config);
  expect((await runCli(['remote', 'init'], { cwd: dir })).code).toBe(0);
  return { dir, runId: (JSON.parse(demo.stdout) as { run_id: string }).run_id };
}

describeWithPostgres('the fleet commands with objects in S3', (postgres) => {
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'ai-fleet-s3-'));
    s3 = await startS3Server();
    await s3.createBucket('fleet-objects');
    // The SDK reads its credentials from this process's environment (the CLI runs in process here).
    withS3Credentials(s3);
  });

  afterAll(async () => {
    await s3.stop();
    await rm(root, { recursive: true, force: true });
  });

  it('push puts the contents in the bucket; a folder with only the config checks out and verifies the run', async () => {
    const catalog = await postgres.createDatabase();
    const { dir: ran, runId } = await demoWithRemote('ran', s3Config(catalog, 'fleet-objects'));
    const status = await runCli(['remote', 'status', '--json'], { cwd: ran });
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({
      objects: { location: 's3://fleet-objects/artifact-ingest', reachable: true },
      usable: true,
    });
    const pushed = await runCli(['push', '--all', '--json'], { cwd: ran });
    expect(pushed.code, pushed.stderr).toBe(0);
    const report = JSON.parse(pushed.stdout) as { pushed: { run_id: string; objects: number }[] };
    expect(report.pushed.map((entry) => entry.run_id)).toEqual([runId]);
    const objects = report.pushed[0]?.objects ?? 0;
    expect(objects).toBeGreaterThan(5);
    const listed = await s3
      .client()
      .send(new ListObjectsV2Command({ Bucket: 'fleet-objects', Prefix: 'artifact-ingest/sha256/' }));
    expect(listed.KeyCount).toBe(objects);
    expect(s3.credentials.secretAccessKey).not.toBe('');
    expect(pushed.stdout + pushed.stderr).not.toContain(s3.credentials.secretAccessKey);

    const fleet = await folder('fleet', s3Config(catalog, 'fleet-objects'));
    const runs = await runCli(['runs', '--remote', '--json'], { cwd: fleet });
    expect((JSON.parse(runs.stdout) as { run_id: string }[]).map((run) => run.run_id)).toEqual([runId]);
    const here = await runCli(['checkout', '--run', runId, '--step', '3', '--to', path.join(root, 'here')], {
      cwd: ran,
    });
    expect(here.code, here.stderr).toBe(0);
    const there = await runCli(
      ['checkout', '--remote', '--run', runId, '--step', '3', '--to', path.join(root, 'there')],
      {
        cwd: fleet,
      },
    );
    expect(there.code, there.stderr).toBe(0);
    expect(await treeDigest(path.join(root, 'there'))).toEqual(await treeDigest(path.join(root, 'here')));
    expect((await readdir(path.join(root, 'there'), { recursive: true })).length).toBeGreaterThan(0);
    const verify = await runCli(['verify', runId, '--remote', '--strict', '--json'], { cwd: fleet });
    expect(verify.code, verify.stdout).toBe(0);
    expect((await readdir(fleet)).sort()).toEqual([PROJECT_CONFIG_FILE]);
  });

  it('a bucket that is not there: push exits 2 naming it (bucket_missing), keeps the outbox; status says so', async () => {
    const catalog = await postgres.createDatabase();
    const { dir, runId } = await demoWithRemote('no-bucket', s3Config(catalog, 'never-made'));
    await markPending(openProject(dir), parseRunId(runId));

    const pushed = await runCli(['push', runId, '--json'], { cwd: dir });
    expect(pushed.code).toBe(2);
    expect(JSON.parse(pushed.stdout)).toMatchObject({ error: { code: 'bucket_missing' } });
    expect(pushed.stderr).toContain('the bucket never-made does not exist at http://127.0.0.1:');
    expect(pushed.stderr).toContain('fix remote.objects');

    const text = await runCli(['push'], { cwd: dir });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('bucket_missing');

    const status = await runCli(['remote', 'status', '--json'], { cwd: dir });
    expect(status.code).toBe(1);
    expect(JSON.parse(status.stdout)).toMatchObject({
      catalog: { reachable: true, init_needed: false },
      objects: { reachable: false, error: { code: 'bucket_missing' } },
      usable: false,
    });
    const statusText = await runCli(['remote', 'status'], { cwd: dir });
    expect(statusText.stdout).toContain(
      'objects  s3://never-made/artifact-ingest: not usable: bucket_missing: the bucket never-made does not exist',
    );
    // Reads refuse the same way, and the outbox still holds the run for the push after the bucket is made.
    const runs = await runCli(['runs', '--remote', '--json'], { cwd: dir });
    expect(runs.code).toBe(2);
    expect(await listPending(openProject(dir))).toEqual([runId]);
    await s3.createBucket('never-made');
    const later = await runCli(['push', '--json'], { cwd: dir });
    expect(later.code, later.stderr).toBe(0);
    expect(await listPending(openProject(dir))).toEqual([]);
  });
});
