import { describe, expect, it } from 'vitest';
import { lineageEndpoint } from '../../../src/report/openlineage/lineage-endpoint.js';

describe('lineageEndpoint', () => {
  it.each([
    ['http://localhost:5000', 'http://localhost:5000/api/v1/lineage'],
    ['http://localhost:5000/', 'http://localhost:5000/api/v1/lineage'],
    ['https://lineage.example.com/marquez', 'https://lineage.example.com/marquez/api/v1/lineage'],
    ['https://lineage.example.com/marquez//', 'https://lineage.example.com/marquez/api/v1/lineage'],
    ['http://127.0.0.1:5000/api/v1/lineage', 'http://127.0.0.1:5000/api/v1/lineage'],
    ['http://host:5000/p?tenant=a#frag', 'http://host:5000/p/api/v1/lineage?tenant=a'],
  ])('posts to %s as %s', (given, expected) => {
    const endpoint = lineageEndpoint(given);
    expect(endpoint.ok && endpoint.url.href).toBe(expected);
  });

  it.each([
    ['localhost:5000', /must start with http:\/\/ or https:\/\/, not localhost:\/\//],
    ['ftp://host/x', /not ftp:\/\//],
    ['file:///tmp/x', /not file:\/\//],
    ['marquez', /'marquez' is not a URL/],
    ['', /'' is not a URL/],
    ['http://user:secret@host:5000', /must not carry a user or password/],
  ])('refuses %s', (given, message) => {
    const endpoint = lineageEndpoint(given);
    expect(endpoint.ok).toBe(false);
    if (!endpoint.ok) {
      expect(endpoint.code).toBe('invalid_url');
      expect(endpoint.message).toMatch(message);
      expect(endpoint.message).not.toContain('secret');
    }
  });
});
