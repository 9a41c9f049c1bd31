import path from 'node:path';
import { describeError } from '../../project/index.js';
import { readUserFileHead } from '../../workspace/index.js';
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
  // One byte past the limit tells a payload over it, and a huge file is never held whole.
  const head = await readUserFileHead(location, maxBytes + 1);
  if (head.ok) return decode(head.bytes, maxBytes, location);
  if (head.problem === 'not_regular') {
    throw new UsageError(
      `FILE ${location} is not a regular file; give the file holding the JSON payload`,
      'submit',
    );
  }
  throw new UsageError(`FILE ${location} cannot be read: ${describeError(head.cause)}`, 'submit');
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
