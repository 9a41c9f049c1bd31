import { describeError } from '../project/index.js';
import { UsageError } from './usage-error.js';

/**
 * Reads a stream (standard input, a file's read stream) to its end but keeps at most `maxBytes + 1` bytes: one
 * byte past the limit is enough for the caller to refuse the input, and nothing unbounded is held. A read
 * error is a usage error naming `what` and the `command`.
 */
export async function readAtMost(
  source: AsyncIterable<string | Uint8Array>,
  maxBytes: number,
  context: { readonly what: string; readonly command: string },
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of source) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      total += bytes.byteLength;
      if (total > maxBytes) break;
    }
  } catch (error) {
    throw new UsageError(`${context.what} cannot be read: ${describeError(error)}`, context.command);
  }
  return Buffer.concat(chunks);
}
