import { describe, expect, it } from 'vitest';
import {
  catalogProblems,
  readRemoteObjects,
  remoteProjectProblems,
  s3EndpointProblems,
  s3RegionProblems,
} from '../../src/config/remote-values.js';

// A password no redaction pattern knows: a message that quoted it would show it as it is.
const PASSWORD = 'Tr0ub4dor-zq-unseen';

describe('remoteProjectProblems', () => {
  it.each(['acme/web', 'a', 'team.x/app_1-b', 'A'.repeat(128), 'acme/web/'])('accepts %j', (project) => {
    expect(remoteProjectProblems(project)).toEqual([]);
  });

  it.each([
    ['', 'is empty'],
    ['/acme', 'starts with "/"'],
    ['.hidden', 'starts with "."'],
    ['acme web', 'holds a space, which a project may not'],
    ['acme:web', 'holds ":", which a project may not'],
    ['acme\u200eweb', 'holds U+200E, which a project may not'],
    ['a'.repeat(129), 'is 129 characters long'],
    ['ghp_EXtMlRz4AnKCdkZBwtNGaKx82cVGEIBLG9HR', 'holds what looks like a credential (GitHub token'],
  ])('refuses %j: %s', (project, problem) => {
    const [message, ...rest] = remoteProjectProblems(project);
    expect(rest).toEqual([]);
    expect(message).toContain(problem);
    expect(message).toContain('such as acme/web');
    if (project.startsWith('ghp_')) expect(message).not.toContain(project);
  });
});

describe('catalogProblems', () => {
  it.each([
    'postgres://lineage@db.internal:5432/lineage?sslmode=require',
    'postgresql://db/lineage',
    'postgres://u@[::1]:5432/db',
    'postgres:///lineage?host=/var/run/postgresql',
    'postgres://u:@h/db',
    'postgres://u@secretdb:5432/db',
    'postgres://u@passwordless:5432/db',
  ])('accepts %j from the file', (catalog) => {
    expect(catalogProblems(catalog, 'file')).toEqual([]);
  });

  it.each([
    [`postgres://u:${PASSWORD}@h/db`, []],
    [`postgres://u@h/db?password=${PASSWORD}`, []],
    [`mysql://u:${PASSWORD}@h/db`, ['is a "mysql" URL; expected postgres:// or postgresql://']],
  ])('from the environment, accepts a password: %j', (catalog, problems) => {
    const found = catalogProblems(catalog, 'environment');
    expect(found).toHaveLength(problems.length);
    for (const [index, problem] of problems.entries()) expect(found[index]).toContain(problem);
  });

  it.each([
    ['', ['is empty']],
    ['   ', ['is empty']],
    ['db.internal:5432', ['is a "db.internal" URL']],
    ['not a url', ['is not a URL']],
    ['https://db/lineage', ['is a "https" URL; expected postgres:// or postgresql://']],
    ['postgres:lineage', ['names no host']],
    ['postgres:///lineage', ['names no host']],
    [`postgres://u:${PASSWORD}@h/db`, ['holds a password; never write it in the config file']],
    [`postgres://:${PASSWORD}@h/db`, ['holds a password']],
    [`postgres://u@h/db?sslmode=require&password=${PASSWORD}`, ['holds a password']],
    [`postgres://u@h/db?PASSWORD=${PASSWORD}`, ['holds a password']],
    ['postgres://u@h/db?sslpassword=x', ['holds what looks like a credential']],
    // Unparseable (a raw "/" in the password), and still recognised as a password, not only as "not a URL".
    [`postgres://u:${PASSWORD}/x@h/db`, ['holds a password']],
    [`mysql://u:${PASSWORD}@h/db`, ['is a "mysql" URL', 'holds a password']],
  ])('from the file, refuses %j', (catalog, problems) => {
    const found = catalogProblems(catalog, 'file');
    expect(found).toHaveLength(problems.length);
    for (const [index, problem] of problems.entries()) expect(found[index]).toContain(problem);
    for (const message of found) {
      expect(message).not.toContain(PASSWORD);
      if (message.includes('password')) expect(message).toContain('PGPASSWORD');
    }
  });
});

describe('readRemoteObjects', () => {
  it.each([
    ['catalog', { kind: 'catalog' }],
    ['s3://artifacts', { kind: 's3', bucket: 'artifacts', prefix: '' }],
    ['s3://artifacts/', { kind: 's3', bucket: 'artifacts', prefix: '' }],
    ['s3://artifacts/artifact-ingest', { kind: 's3', bucket: 'artifacts', prefix: 'artifact-ingest' }],
    ['s3://my.bucket-1/team/web/', { kind: 's3', bucket: 'my.bucket-1', prefix: 'team/web' }],
    ["s3://abc/a!b_c.d*e'f(g)h", { kind: 's3', bucket: 'abc', prefix: "a!b_c.d*e'f(g)h" }],
    ['S3://artifacts/x', { kind: 's3', bucket: 'artifacts', prefix: 'x' }],
  ])('reads %j', (objects, expected) => {
    expect(readRemoteObjects(objects)).toEqual({ ok: true, objects: expected });
  });

  it.each([
    ['', 'is empty'],
    ['Catalog', 'did you mean "catalog"?'],
    ['catalogue', 'did you mean "catalog"?'],
    ['bucket/prefix', 'is neither an s3:// URL nor catalog'],
    ['https://s3.example.com/bucket', 'is a "https" URL; write s3://bucket'],
    ['gs://bucket', 'is a "gs" URL'],
    ['s3://', 'names no bucket'],
    ['s3:///prefix', 'names no bucket'],
    ['s3://ab', 'bucket name is 2 characters long'],
    [`s3://${'a'.repeat(64)}`, 'bucket name is 64 characters long'],
    ['s3://My-Bucket', 'bucket name holds upper case ("M")'],
    ['s3://my_bucket', 'bucket name holds "_"'],
    ['s3://bucket:9000/x', 'bucket name holds ":"'],
    ['s3://secretbucket:9000/x', 'bucket name holds ":"'],
    ['s3://-bucket', 'starts or ends with "." or "-"'],
    ['s3://bucket./x', 'starts or ends with "." or "-"'],
    ['s3://bucket/a//b', 'prefix has an empty, "." or ".." part'],
    ['s3://bucket/a/../b', 'prefix has an empty, "." or ".." part'],
    ['s3://bucket/a b', 'prefix holds a space'],
    ['s3://bucket/a?x=1', 'prefix holds "?"'],
    [`s3://bucket/${'a'.repeat(901)}`, 'prefix is 901 characters long; keep it to 900'],
    [`s3://AKIAIOSFODNN7EXAMPL3:${PASSWORD}@bucket/x`, 'holds credentials; never write them'],
    ['s3://bucket/AKIAIOSFODNN7EXAMPL3', 'holds what looks like a credential (AWS access key id'],
  ])('refuses %j: %s', (objects, problem) => {
    const reading = readRemoteObjects(objects);
    expect(reading.ok).toBe(false);
    const problems = reading.ok ? [] : reading.problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(problem);
    expect(problems[0]).not.toContain(PASSWORD);
    expect(problems[0]).not.toContain('AKIAIOSFODNN7EXAMPL3');
    if (problem.includes('credential')) expect(problems[0]).toContain('AWS_SECRET_ACCESS_KEY');
  });

  it('reports a bad bucket and a bad prefix together', () => {
    const reading = readRemoteObjects('s3://B/a//b');
    expect(reading.ok ? [] : reading.problems).toEqual([
      expect.stringContaining('bucket name holds upper case'),
      expect.stringContaining('prefix has an empty'),
    ]);
  });
});

describe('s3EndpointProblems', () => {
  it.each([
    'http://127.0.0.1:9000',
    'https://s3.example.com',
    'https://minio.internal/base/',
    'http://secretstore:9000',
  ])('accepts %j', (endpoint) => {
    expect(s3EndpointProblems(endpoint)).toEqual([]);
  });

  it.each([
    ['', 'is empty'],
    ['127.0.0.1:9000', 'is not a URL'],
    ['minio', 'is not a URL'],
    ['ftp://files.example.com', 'is a "ftp" URL; expected http:// or https://'],
    [`http://minio:${PASSWORD}@127.0.0.1:9000`, 'holds credentials'],
    [`http://minio:${PASSWORD}/x@127.0.0.1:9000`, 'holds credentials'],
    ['http://minio:9000/?X-Amz-Security-Token=abc', 'holds credentials'],
  ])('refuses %j: %s', (endpoint, problem) => {
    const [message, ...rest] = s3EndpointProblems(endpoint);
    expect(rest).toEqual([]);
    expect(message).toContain(problem);
    expect(message).not.toContain(PASSWORD);
    if (problem === 'holds credentials') expect(message).toContain('AWS_ACCESS_KEY_ID');
  });
});

describe('s3RegionProblems', () => {
  it.each(['us-east-1', 'auto', 'garage'])('accepts %j', (region) => {
    expect(s3RegionProblems(region)).toEqual([]);
  });

  it.each([
    ['', 'is empty'],
    ['us east', 'holds a space'],
    ['r'.repeat(65), 'is 65 characters long'],
  ])('refuses %j: %s', (region, problem) => {
    expect(s3RegionProblems(region)).toEqual([expect.stringContaining(problem)]);
  });
});
