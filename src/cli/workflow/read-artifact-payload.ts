import { open } from 'node:fs/promises';
import path from 'node:path';
import { describeError } from '../../project/index.js';
import type { CliIo } from '../cli-io.js';
import { readAtMost } from '../read-at-most.js';
import { UsageError } from '../usage-error.js';

/** The payload text `submit` read, or why the bytes it read cannot be a payload. */
export type ArtifactPayloadText =
  | { readonly ok: true; readonly text: string; readonly source: string }
  | { readonly ok: false; readonly problem: 'too_large' | 'not_utf8'; readonly source: string };

/**
 * Reads the payload of `submit` from FILE, or from standard input for `-` (or no FILE when stdin is not a
 * terminal), stopping at `maxBytes + 1` bytes so a huge input is never held whole; a FILE that cannot be
 * read or a missing input is a usage error.
 */
export async function readArtifactPayload(
  file: string | undefined,
  io: CliIo,
  maxBytes: number,
): Promise<ArtifactPayloadText> {
  if (file === undefined || file === '-') {
    if (io.stdin === undefined || (file === undefined && isTerminal(io.stdin))) {
      throw new UsageError(
        'submit needs the payload: give FILE, or pipe the JSON in (FILE omitted or -)',
        'submit',
      );
    }
    return decode(
      await readAtMost(io.stdin, maxBytes, { what: 'the payload in standard input', command: 'submit' }),
      maxBytes,
      'standard input',
    );
  }
  const location = path.resolve(io.cwd, file);
  let handle;
  try {
    handle = await open(location, 'r');
  } catch (error) {
    throw new UsageError(`FILE ${location} cannot be read: ${describeError(error)}`, 'submit');
  }
  try {
    if (!(await handle.stat()).isFile()) {
      throw new UsageError(
        `FILE ${location} is not a regular file; give the file holding the JSON payload`,
        'submit',
      );
    }
    return decode(
      await readAtMost(handle.createReadStream(), maxBytes, {
        what: `the payload in ${location}`,
        command: 'submit',
      }),
      maxBytes,
      location,
    );
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function decode(bytes: Uint8Array, maxBytes: number, source: string): ArtifactPayloadText {
  if (bytes.byteLength > maxBytes) return { ok: false, problem: 'too_large', source };
  try {
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes), source };
  } catch {
    return { ok: false, problem: 'not_utf8', source };
  }
}

function isTerminal(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && 'isTTY' in stream && stream.isTTY === true;
}
