import { describe, expect, it } from 'vitest';
import { redactCatalogUrl } from '../../src/config/redact-catalog-url.js';

const SECRET = 'Tr0ub4dor-zq-unseen';

describe('redactCatalogUrl', () => {
  it.each([
    [
      `postgres://lineage:${SECRET}@db:5432/lineage?sslmode=require`,
      'postgres://lineage:[REDACTED]@db:5432/lineage?sslmode=require',
    ],
    [`postgresql://:${SECRET}@db/l`, 'postgresql://:[REDACTED]@db/l'],
    // WHATWG URL takes the last "@" of the authority, as pg does: the password holds the first.
    [`postgres://u:${SECRET}@x@db/l`, 'postgres://u:[REDACTED]@db/l'],
    [`postgres://u:${encodeURIComponent(`${SECRET}/%?`)}@db/l`, 'postgres://u:[REDACTED]@db/l'],
    // Not a URL (a raw "/" in the password): everything up to the last "@" before the query is the user.
    [`postgres://u:${SECRET}/more@db/l?sslmode=require`, 'postgres://u:[REDACTED]@db/l?sslmode=require'],
    [
      `postgres://u@db/l?sslmode=require&password=${SECRET}&application_name=ai`,
      'postgres://u@db/l?sslmode=require&password=[REDACTED]&application_name=ai',
    ],
    [`postgres://u@db/l?PASSWORD=${SECRET}`, 'postgres://u@db/l?PASSWORD=[REDACTED]'],
    [`postgres://u@db/l?sslpassword=${SECRET}#x`, 'postgres://u@db/l?sslpassword=[REDACTED]#x'],
    [`host=db password=${SECRET}`, 'host=db password=[REDACTED]'],
  ])('removes the password from %j', (url, shown) => {
    expect(redactCatalogUrl(url)).toBe(shown);
    expect(redactCatalogUrl(url)).not.toContain(SECRET);
  });

  it.each([
    'postgres://lineage@db.internal:5432/lineage?sslmode=require',
    'postgres://db:5432/lineage@2026',
    'postgres:///lineage?host=/var/run/postgresql',
    'postgresql://u:@db/l',
    'catalog',
    '',
  ])('shows %j as it is', (url) => {
    expect(redactCatalogUrl(url)).toBe(url);
  });
});
