import path from 'node:path';
import { describeError } from '../../project/index.js';
import { readUserFileHead } from '../../workspace/index.js';
import type { CliIo } from '../cli-io.js';
import { readAtMost } from '../read-at-most.js';
import { UsageError } from '../usage-error.js';

/** Where `workflow advance` takes the step's output from: `--output TEXT`, `--output-file FILE` or `-` (stdin). */
export interface WorkflowOutputFlags {
  readonly output?: string | undefined;
  readonly outputFile?: string | undefined;
}

/**
 * The step's output as text (undefined when no flag gives one): read whole, at most `maxBytes` (the ingest's
 * document limit, since the output becomes the step's document), and refused unless it is valid UTF-8.
 */
export async function readWorkflowOutput(
  flags: WorkflowOutputFlags,
  io: CliIo,
  maxBytes: number,
): Promise<string | undefined> {
  if (flags.output !== undefined && flags.outputFile !== undefined) {
    throw new UsageError(
      '--output and --output-file both give the output; pass one of them',
      'workflow advance',
    );
  }
  if (flags.output !== undefined) return flags.output;
  if (flags.outputFile === undefined) return undefined;
  if (flags.outputFile === '-') {
    if (io.stdin === undefined) {
      throw new UsageError(
        '--output-file - reads standard input, and there is none here; pass --output-file FILE',
        'workflow advance',
      );
    }
    return decode(await readStdin(io.stdin, maxBytes, 'standard input'), 'standard input');
  }
  const file = path.resolve(io.cwd, flags.outputFile);
  return decode(await readFileLimited(file, maxBytes), file);
}

async function readFileLimited(file: string, maxBytes: number): Promise<Uint8Array> {
  // A file that grows while it is read is still cut one byte past the limit: the read, not a stat, decides.
  const head = await readUserFileHead(file, maxBytes + 1);
  if (head.ok) return refuseOverLimit(head.bytes, maxBytes, file);
  if (head.problem === 'not_regular') {
    throw new UsageError(
      `--output-file ${file} is not a regular file; give the file holding the step's output`,
      'workflow advance',
    );
  }
  throw new UsageError(
    `--output-file ${file} cannot be read: ${describeError(head.cause)}`,
    'workflow advance',
  );
}

/** Reads the output from standard input, refusing it when it is larger than the ingest's document limit. */
async function readStdin(
  source: AsyncIterable<string | Uint8Array>,
  maxBytes: number,
  what: string,
): Promise<Uint8Array> {
  const bytes = await readAtMost(source, maxBytes, {
    what: `the output in ${what}`,
    command: 'workflow advance',
  });
  return refuseOverLimit(bytes, maxBytes, what);
}

function refuseOverLimit(bytes: Uint8Array, maxBytes: number, what: string): Uint8Array {
  if (bytes.byteLength > maxBytes) {
    throw new UsageError(
      `the output in ${what} is larger than ${String(maxBytes)} bytes (ingest.limits.max_document_bytes); shorten it`,
      'workflow advance',
    );
  }
  return bytes;
}

function decode(bytes: Uint8Array, what: string): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new UsageError(
      `the output in ${what} is not valid UTF-8; save it as UTF-8 text`,
      'workflow advance',
    );
  }
}
