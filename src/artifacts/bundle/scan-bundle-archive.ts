import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Parser, ReadEntry } from 'tar';
import { ScanState, tooLarge } from './scan-state.js';
import { DEFAULT_INGEST_LIMITS } from '../../config/index.js';
import { describeError } from '../../project/index.js';
import { openUserFile } from '../../workspace/index.js';
import type { FileHandle } from '../../workspace/index.js';
import { BundleError } from './bundle-error.js';
import { tarModule } from './tar-module.js';
import { TarEndFinder } from './tar-end-finder.js';
import type { BundleLimits, ScannedArchive, ScanOptions } from './scan-types.js';

/**
 * Defaults of {@link BundleLimits}: 1 GiB in all; 64 MiB per run file (a long run's events.jsonl); per object the
 * ingest's max_document_bytes (16 MiB), since every object is a node document or a block of one.
 */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = Object.freeze({
  maxBytes: 1024 ** 3,
  maxFileBytes: 64 * 1024 * 1024,
  maxObjectBytes: DEFAULT_INGEST_LIMITS.maxDocumentBytes,
});

// A gzip or zstd stream inside the gzip: node-tar would quietly decompress it again, past the size limit.
const NESTED_COMPRESSION = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];

/**
 * Most bytes read after the tar end-of-archive marker, all zeros: writers pad an archive to their record size
 * (10 KiB for GNU tar), never more than this; gzip shrinks zeros about 1000:1, so without a cap a 2 MiB file
 * holds 2 GB of them.
 */
export const MAX_TRAILING_BYTES = 1024 * 1024;

// The parser gets large writes: gunzip's default 16 KiB chunks cost a call (and, past the marker, a copy) each.
const CHUNK_BYTES = 64 * 1024;

/**
 * Streams a gzip tar bundle through node-tar's Parser, judging each entry's raw path, type and header size as
 * it arrives (before its body is read) and hashing each file's body as it streams; throws a
 * {@link BundleError} at the first entry that breaks a rule. Memory holds at most one kept entry.
 */
export async function scanBundleArchive(
  bundleFile: string,
  limits: BundleLimits,
  options: ScanOptions,
): Promise<ScannedArchive> {
  const state = new ScanState(limits, options, bundleFile);
  const parser = new (tarModule().Parser)({ strict: true });
  parser.on('entry', (entry: ReadEntry) => {
    state.onEntry(entry);
  });
  parser.on('ignoredEntry', (entry: ReadEntry) => {
    state.fail(
      new BundleError({
        code: 'unsupported_entry',
        entry: entry.path,
        message: `entry ${JSON.stringify(entry.path)} has a type node-tar does not read (${entry.header.type}); a bundle holds regular files and folders only`,
      }),
    );
    entry.resume();
  });
  parser.on('error', (error: Error) => {
    state.fail(notABundle(bundleFile, `it is not a readable tar archive (${error.message})`, error));
  });
  parser.on('eof', () => {
    state.parserEnded = true;
  });
  const parsed = new Promise<void>((resolveParsed) => {
    parser.once('end', resolveParsed);
    parser.once('error', () => {
      resolveParsed();
    });
  });

  try {
    return await streamArchive(bundleFile, limits, state, parser, parsed);
  } finally {
    // A refusal or fault mid-entry: the consumer of that entry sees its body fail and removes what it wrote.
    await state.stopStreaming();
  }
}

async function streamArchive(
  bundleFile: string,
  limits: BundleLimits,
  state: ScanState,
  parser: Parser,
  parsed: Promise<void>,
): Promise<ScannedArchive> {
  let total = 0;
  let head = Buffer.alloc(0);
  const tarEnd = new TarEndFinder();
  let trailing = 0;
  try {
    await pipeline(
      (await openBundleFile(bundleFile)).createReadStream({ highWaterMark: CHUNK_BYTES }),
      createGunzip({ chunkSize: CHUNK_BYTES }),
      async (chunks: AsyncIterable<Buffer>) => {
        for await (const chunk of chunks) {
          total += chunk.length;
          if (total > limits.maxBytes) {
            state.fail(
              tooLarge(`${bundleFile} holds more than ${String(limits.maxBytes)} bytes uncompressed`),
            );
          } else if (head.length < 4) {
            head = Buffer.concat([head, chunk]).subarray(0, 4);
            if (NESTED_COMPRESSION.some((magic) => head.subarray(0, magic.length).equals(magic))) {
              state.fail(
                notABundle(bundleFile, 'it holds a compressed stream inside the gzip, not a tar archive'),
              );
            }
          }
          state.throwIfFailed();
          // Only the archive goes to the parser, up to its end-of-archive marker; what follows is padding.
          const walking = !tarEnd.ended;
          const archived = tarEnd.take(chunk);
          if (tarEnd.problem === 'stray_zero_block') state.fail(strayZeroBlock(bundleFile));
          state.throwIfFailed();
          // All but the marker's last byte, then that byte: in step with the walk, the parser finds the end with it.
          const lastByte = walking && tarEnd.ended ? archived - 1 : archived;
          for (const [from, to] of [
            [0, lastByte],
            [lastByte, archived],
          ] as const) {
            if (to === from) continue;
            // The parser found an end where the headers' sizes do not lead: never feed it past its own end.
            if (state.parserEnded) state.fail(misplacedEnd(bundleFile));
            state.throwIfFailed();
            parser.write(from === 0 && to === chunk.length ? chunk : chunk.subarray(from, to));
            // Backpressure: the entries this chunk completed are handled before the next chunk is read.
            await state.settle();
            state.throwIfFailed();
          }
          if (state.parserEnded && !tarEnd.ended) state.fail(misplacedEnd(bundleFile));
          const after = chunk.subarray(archived);
          trailing += after.length;
          if (after.some((byte) => byte !== 0)) state.fail(trailingData(bundleFile));
          else if (trailing > MAX_TRAILING_BYTES) state.fail(tooMuchPadding(bundleFile));
          state.throwIfFailed();
        }
      },
    );
  } catch (error) {
    // The refusal that stopped the stream, not the abort error node's pipeline reports for it.
    state.throwIfFailed();
    if (error instanceof BundleError) throw error;
    const why = errnoLike(error)
      ? `it cannot be read (${(error as NodeJS.ErrnoException).code ?? ''}); check the path`
      : `it is not an intact gzip file (${describeError(error)})`;
    throw notABundle(bundleFile, why, error);
  }
  parser.end();
  await parsed;
  await state.settle();
  state.throwIfFailed();
  if (tarEnd.problem === undefined && !tarEnd.ended) {
    throw notABundle(
      bundleFile,
      'its tar archive stops without its end-of-archive marker (two zero blocks), so it was cut short',
    );
  }
  if (tarEnd.ended && !state.parserEnded) throw misplacedEnd(bundleFile);
  return state.finish();
}

function notABundle(bundleFile: string, why: string, cause?: unknown): BundleError {
  return new BundleError({
    code: 'not_a_bundle',
    message: `${bundleFile} is not a bundle: ${why}; pass a .tar.gz made by 'artifact-ingest bundle'`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Opens the bundle without waiting (a FIFO with no writer would hold a plain open forever) and checks on the
 * descriptor that it is a regular file; a symlink is followed, as for any path the user names.
 */
async function openBundleFile(bundleFile: string): Promise<FileHandle> {
  const opening = await openUserFile(bundleFile);
  if (opening.ok) return opening.handle;
  if (opening.problem === 'not_regular')
    throw notABundle(bundleFile, `it is ${opening.what}, not a regular file`);
  throw opening.cause;
}

function strayZeroBlock(bundleFile: string): BundleError {
  return notABundle(
    bundleFile,
    'its tar archive has a zero block between two entries, which no tar writer puts there',
  );
}

function misplacedEnd(bundleFile: string): BundleError {
  return notABundle(
    bundleFile,
    "its tar archive's end-of-archive marker is not where its headers' sizes lead (an extended header changed a size)",
  );
}

function trailingData(bundleFile: string): BundleError {
  return notABundle(bundleFile, 'it holds data after the end-of-archive marker of its tar archive');
}

function tooMuchPadding(bundleFile: string): BundleError {
  return notABundle(
    bundleFile,
    `it holds more than ${String(MAX_TRAILING_BYTES)} bytes of padding after the end-of-archive marker of its tar archive, which makes it cost time without holding anything`,
  );
}

/** Whether an error is the file system's (the read stream) rather than zlib's. */
function errnoLike(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
