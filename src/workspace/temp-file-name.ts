import { randomBytes } from 'node:crypto';

/** Every temp file the writer creates matches this; fixed length so a 255-byte target name still fits. */
export const TEMP_FILE_PATTERN = /^\.artifact-ingest-[0-9a-f]{16}\.tmp$/u;

/** A fresh, unpredictable temp file name for one write. */
export function tempFileName(): string {
  return `.artifact-ingest-${randomBytes(8).toString('hex')}.tmp`;
}
