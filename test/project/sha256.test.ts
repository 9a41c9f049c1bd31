import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/project/sha256.js';

describe('sha256Hex', () => {
  it('hashes a string as its UTF-8 bytes', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('é')).toBe(sha256Hex(new TextEncoder().encode('é')));
  });

  it('hashes bytes as node:crypto does', () => {
    const bytes = new Uint8Array([0, 255, 10]);
    expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
  });
});
