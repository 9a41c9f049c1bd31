import { openConfinedRoot } from '../../workspace/index.js';
import type { CliIo } from '../cli-io.js';
import { readAtMost } from '../read-at-most.js';
import { UsageError } from '../usage-error.js';

/** The document `ingest -` read from standard input, and where in the project it is saved. */
export interface StdinDocument {
  /** `--doc-path`, normalized: a file under docs/ or audits/. */
  readonly docPath: string;
  readonly bytes: Uint8Array;
  /** The bytes decoded; undefined when they are not valid UTF-8 (the ingest then reports `invalid_utf8`). */
  readonly text: string | undefined;
}

/**
 * Reads the one document of `ingest -` from standard input, at most `maxBytes` (max_document_bytes), after
 * checking `--doc-path` as a node's output path is checked; a missing, empty or oversized input is a usage error.
 */
export async function readStdinDocument(
  docPathFlag: string,
  io: CliIo,
  maxBytes: number,
): Promise<StdinDocument> {
  // Loaded on this path only: the output-path rule lives with the graph runtime, which writes documents too.
  const { resolveOutputPath } = await import('../../runtime/index.js');
  const judged = resolveOutputPath(docPathFlag, '--doc-path');
  if (!judged.ok) throw new UsageError(judged.message, 'ingest');
  const { path: docPath } = judged;
  if (io.stdin === undefined) {
    throw new UsageError(
      'ingest - reads the document from standard input, and there is none here; pass the document as PATH',
      'ingest',
    );
  }
  // A terminal on stdin is a person who may have forgotten the pipe: say what the command waits for.
  if (isTerminal(io.stdin)) {
    io.stderr.write(
      `artifact-ingest: reading the document for ${docPath} from standard input; end it with Ctrl-D (Ctrl-C to cancel)\n`,
    );
  }
  const bytes = await readAtMost(io.stdin, maxBytes, {
    what: 'the document in standard input',
    command: 'ingest',
  });
  if (bytes.byteLength > maxBytes) {
    throw new UsageError(
      `the document in standard input is larger than ${String(maxBytes)} bytes (ingest.limits.max_document_bytes); nothing was written: shorten it or raise the limit`,
      'ingest',
    );
  }
  // An empty pipe is what a failed producer leaves: saving it would replace the document with nothing.
  if (bytes.byteLength === 0) {
    throw new UsageError(
      `standard input is empty, so there is no document to save as ${docPath}; nothing was written: pipe the document in`,
      'ingest',
    );
  }
  return { docPath, bytes, text: decodeUtf8(bytes) };
}

/**
 * Saves the document as `docPath` under the project through the confined writer (atomic, no symlink followed);
 * on a dry run only checks that it could. A refused path is a usage error naming why.
 */
export async function saveStdinDocument(
  projectDir: string,
  document: StdinDocument,
  options: { readonly dryRun: boolean; readonly durability: 'fsync' | 'none' },
): Promise<void> {
  const root = await openConfinedRoot(projectDir);
  try {
    const outcome = await root.write(document.docPath, document.bytes, options);
    if (outcome.status === 'refused') {
      throw new UsageError(
        `--doc-path ${document.docPath} cannot be written: ${outcome.code}: ${outcome.message}; nothing was written: name another file`,
        'ingest',
      );
    }
  } finally {
    await root.close();
  }
}

function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

function isTerminal(stream: unknown): boolean {
  return typeof stream === 'object' && stream !== null && 'isTTY' in stream && stream.isTTY === true;
}
