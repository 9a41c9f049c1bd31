import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isProcessAlive } from './locks/index.js';

/**
 * Every temp file the writer creates matches this: `.artifact-ingest-<host>-<pid>-<random>.tmp` (8, 8 and 16
 * hex digits; 55 bytes whatever the target's name). The older form without host and pid is still recognised.
 */
export const TEMP_FILE_PATTERN = /^\.artifact-ingest-(?:[0-9a-f]{8}-[0-9a-f]{8}-)?[0-9a-f]{16}\.tmp$/u;

const TAGGED = /^\.artifact-ingest-([0-9a-f]{8})-([0-9a-f]{8})-[0-9a-f]{16}\.tmp$/u;

/** This host, as 8 hex digits of its name's sha256: enough to tell the hosts sharing one project apart. */
const HOST_TAG = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);

/** A fresh, unpredictable temp file name for one write, naming this host and process as its writer. */
export function tempFileName(): string {
  const pid = process.pid.toString(16).padStart(8, '0');
  return `.artifact-ingest-${HOST_TAG}-${pid}-${randomBytes(8).toString('hex')}.tmp`;
}

/**
 * What a temp file's name says of its writer: `gone` (a process of this host that no longer runs: it was
 * killed between creating and renaming the file, so nobody will rename it; the same judgement as a lock whose
 * holder is gone), `alive` (a process of this host that runs: a write in progress, or a reused pid), or
 * `unknown` (another host's file, or the older untagged name: only its age can tell).
 */
export function tempFileWriter(name: string): 'gone' | 'alive' | 'unknown' {
  const tagged = TAGGED.exec(name);
  if (tagged === null || tagged[1] !== HOST_TAG) return 'unknown';
  return isProcessAlive(Number.parseInt(tagged[2] ?? '', 16)) ? 'alive' : 'gone';
}
