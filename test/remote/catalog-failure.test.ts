import { describe, expect, it } from 'vitest';
import { catalogFailure, RemoteError } from '../../src/remote/index.js';
import type { RemoteErrorCode } from '../../src/remote/index.js';

const SETTINGS = {
  project: 'acme/web',
  catalog: 'postgresql://lineage:Zq-hidden-pw@db.internal:5432/lineage?sslmode=require&password=Zq-hidden-pw',
  objects: { kind: 'catalog' as const },
  s3: { endpoint: undefined, region: undefined, forcePathStyle: false, checksums: 'when_supported' as const },
};

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('catalogFailure', () => {
  it.each<[string, unknown, RemoteErrorCode]>([
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      'unreachable',
    ],
    ['a timeout', new Error('Connection terminated due to connection timeout'), 'unreachable'],
    [
      'a failed login (28P01)',
      pgError('28P01', 'password authentication failed for user "lineage"'),
      'unreachable',
    ],
    ['a missing database (3D000)', pgError('3D000', 'database "lineage" does not exist'), 'unreachable'],
    [
      'a server shutting down (57P01)',
      pgError('57P01', 'terminating connection due to administrator command'),
      'unreachable',
    ],
    [
      'a refused permission (42501)',
      pgError('42501', 'permission denied for schema public'),
      'remote_failed',
    ],
    ['a full disk (53100)', pgError('53100', 'could not extend file'), 'remote_failed'],
  ])('makes %s %s', (_name, error, code) => {
    const failure = catalogFailure(SETTINGS, error);
    expect(failure).toBeInstanceOf(RemoteError);
    expect(failure.code).toBe(code);
    expect(failure.part).toBe('catalog');
    expect(failure.message).toContain('postgresql://lineage@db.internal:5432/lineage');
    expect(failure.message).not.toContain('Zq-hidden-pw');
  });

  it('passes a RemoteError through unchanged', () => {
    const error = new RemoteError({ code: 'schema_too_new', part: 'catalog', message: 'newer' });
    expect(catalogFailure(SETTINGS, error)).toBe(error);
  });
});
