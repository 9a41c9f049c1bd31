import { createHash } from 'node:crypto';

/** The lowercase hex SHA-256 of bytes, or of a string's UTF-8. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
