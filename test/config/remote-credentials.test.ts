import { describe, expect, it } from 'vitest';
import { isCredentialKey, remoteCredentialIssues } from '../../src/config/remote-credentials.js';

describe('remoteCredentialIssues', () => {
  it.each([
    ['password', 'PGPASSWORD'],
    ['Password', 'PGPASSWORD'],
    ['PGPASSWORD', 'PGPASSWORD'],
    ['pg_password', 'PGPASSWORD'],
    ['passwd', 'PGPASSWORD'],
    ['access_key_id', 'AWS_ACCESS_KEY_ID'],
    ['accessKeyId', 'AWS_ACCESS_KEY_ID'],
    ['AWS_ACCESS_KEY_ID', 'AWS_ACCESS_KEY_ID'],
    ['access-key', 'AWS_ACCESS_KEY_ID'],
    ['secret_access_key', 'AWS_SECRET_ACCESS_KEY'],
    ['secretAccessKey', 'AWS_SECRET_ACCESS_KEY'],
    ['aws_secret_access_key', 'AWS_SECRET_ACCESS_KEY'],
    ['SECRET_KEY', 'AWS_SECRET_ACCESS_KEY'],
    ['session_token', 'AWS_SESSION_TOKEN'],
    ['sessionToken', 'AWS_SESSION_TOKEN'],
    ['AWS_SESSION_TOKEN', 'AWS_SESSION_TOKEN'],
  ])('finds %j and names %s', (key, variable) => {
    expect(isCredentialKey(key)).toBe(true);
    const issues = remoteCredentialIssues({ [key]: 'value-never-read' });
    expect(issues).toEqual([
      {
        path: [],
        params: { key, keyInPath: false },
        message: expect.stringMatching(
          new RegExp(
            `^"${key}" is a credential; never write one in the config file: remove it and set ${variable}`,
          ),
        ) as string,
      },
    ]);
    expect(JSON.stringify(issues)).not.toContain('value-never-read');
  });

  it.each([
    'user',
    'username',
    'project',
    'region',
    'token_file',
    'password_file',
    'constructor',
    '__proto__',
    'secret',
  ])('leaves %j alone', (key) => {
    expect(isCredentialKey(key)).toBe(false);
    expect(remoteCredentialIssues(JSON.parse(`{${JSON.stringify(key)}: 1}`))).toEqual([]);
  });

  it('finds credentials at any depth, in mappings and lists, with their paths', () => {
    const issues = remoteCredentialIssues({
      s3: { password: 'x', nested: [{ sessionToken: 'y' }] },
      auth: { pg: { PGPASSWORD: 'z' } },
    });
    const found = issues.map(({ path, params, message }) => ({ path, key: params?.key, message }));
    // The loader sorts issues by line and column; here they are compared by key.
    found.sort((a, b) => (String(a.key) < String(b.key) ? -1 : 1));
    expect(found).toEqual([
      { path: ['auth', 'pg'], key: 'PGPASSWORD', message: expect.stringContaining('PGPASSWORD') as string },
      // Under remote.s3 a password is the S3 secret key.
      { path: ['s3'], key: 'password', message: expect.stringContaining('AWS_SECRET_ACCESS_KEY') as string },
      {
        path: ['s3', 'nested', 0],
        key: 'sessionToken',
        message: expect.stringContaining('AWS_SESSION_TOKEN') as string,
      },
    ]);
  });

  it('stops at a bounded depth, where an unknown key above is refused anyway', () => {
    let deep: unknown = { password: 'x' };
    for (let level = 0; level < 10_000; level += 1) deep = { a: deep };
    expect(remoteCredentialIssues(deep)).toEqual([]);
    let shallow: unknown = { password: 'x' };
    for (let level = 0; level < 30; level += 1) shallow = { a: shallow };
    expect(remoteCredentialIssues(shallow)).toHaveLength(1);
  });

  it.each([null, undefined, 'text', 3, true])('finds nothing in %j', (value) => {
    expect(remoteCredentialIssues(value)).toEqual([]);
  });
});
