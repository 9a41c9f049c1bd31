import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import type { Pack } from 'tar';
import { errnoOf, quickFs, WorkspaceError, writeFileAtomically } from '../../workspace/index.js';
import type { FileHandle } from '../../workspace/index.js';
import { BundleError } from './bundle-error.js';
import { tarModule } from './tar-module.js';

// The bundle file is the user's, not the store's: this file and scan-bundle-archive.ts are the only ones of the
// bundle that touch the filesystem, this one to write it, that one to read it (D103).

/** One archive entry: a folder, or a file with its bytes (read lazily for objects). */
export type ArchiveEntry =
  | { readonly type: 'Directory'; readonly path: string }
  | { readonly type: 'File'; readonly path: string; readonly bytes: () => Promise<Uint8Array> };

// Every entry gets this mtime and `portable` drops owner, times and host modes: the same run and objects
// give the same archive bytes (with the same zlib), whoever bundles them and whenever.
const FIXED_MTIME = new Date(0);

/**
 * Streams the entries through node-tar's Pack (gzip, portable, fixed mtime) into `handle`, one entry in the pack
 * at a time, each handed over only once the pack has written the one before; returns the bytes written.
 */
export async function writeBundleArchive(
  handle: FileHandle,
  entries: readonly ArchiveEntry[],
): Promise<number> {
  const { Pack } = tarModule();
  // The pack's wrapper of each entry handed over, settling once the pack has written all of it into the gzip.
  const taken: Promise<void>[] = [];
  const pack = new Pack({
    portable: true,
    gzip: true,
    mtime: FIXED_MTIME,
    // Called inside pack.write(), before a byte of the entry moves: listening here cannot miss its 'end'.
    onWriteEntry: (entry) => {
      taken.push(
        new Promise<void>((resolvePacked, rejectPacked) => {
          entry.once('end', resolvePacked);
          entry.once('error', rejectPacked);
        }),
      );
    },
  });
  let written = 0;
  // A plain Writable over the handle: the caller keeps the descriptor, to fsync it before the rename.
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      writeWhole(handle, chunk).then(() => {
        written += chunk.length;
        done();
      }, done);
    },
  });
  const flushed = new Promise<void>((resolveFlushed, rejectFlushed) => {
    output.once('finish', resolveFlushed);
    output.once('error', rejectFlushed);
  });
  // Observed here, reported by the await below: a failed write must not also surface as an unhandled rejection.
  flushed.catch(() => undefined);
  pack.pipe(output);
  // A failed write stops the stream; racing it keeps the producer from waiting forever on an entry.
  const writeFailed = flushed.then(() => new Promise<never>(() => undefined));
  writeFailed.catch(() => undefined);
  let failure: { readonly error: unknown } | undefined;
  try {
    for (const entry of entries) await Promise.race([addEntry(pack, entry, taken), writeFailed]);
  } catch (error) {
    failure = { error };
  }
  pack.end();
  // The stream must finish before the caller closes the handle, whether or not packing failed.
  await flushed.catch((error: unknown) => {
    failure ??= { error };
  });
  if (failure !== undefined) throw failure.error;
  return written;
}

/** Writes all of `chunk`: a write(2) may take fewer bytes than it was given (a full disk, a signal). */
async function writeWhole(handle: FileHandle, chunk: Buffer): Promise<void> {
  for (let at = 0; at < chunk.length;) {
    const { bytesWritten } = await handle.write(chunk, at, chunk.length - at);
    if (bytesWritten === 0) throw new Error('the output took no bytes');
    at += bytesWritten;
  }
}

/**
 * Adds one in-memory entry to the pack and resolves once the pack has written all of it. Not sooner: Pack counts
 * every queued entry against its `jobs` (4) and pipes only the head, so with the output backed up and five entries
 * queued it pipes none of them again, and the process runs out of work with the archive half written.
 */
async function addEntry(pack: Pack, entry: ArchiveEntry, taken: Promise<void>[]): Promise<void> {
  const bytes = entry.type === 'File' ? Buffer.from(await entry.bytes()) : Buffer.alloc(0);
  const { Header, ReadEntry } = tarModule();
  const header = new Header({
    path: entry.path,
    type: entry.type,
    size: bytes.length,
    mode: entry.type === 'File' ? 0o644 : 0o755,
    mtime: FIXED_MTIME,
  });
  const readEntry = new ReadEntry(header);
  if (bytes.length > 0) readEntry.write(bytes);
  readEntry.end();
  pack.write(readEntry);
  const packed = taken.shift();
  if (packed === undefined) throw new Error(`node-tar's Pack did not take the entry ${entry.path}`);
  await packed;
}

/** Refuses an output path that exists (unless `force`) or is a folder, before anything is packed. */
export async function checkBundleOutput(target: string, force: boolean): Promise<void> {
  let info;
  try {
    info = await quickFs.lstat(target);
  } catch (error) {
    if (errnoOf(error) === 'ENOENT') return;
    throw error;
  }
  if (!force) throw outputExists(target);
  if (info.isDirectory()) {
    throw new BundleError({
      code: 'output_exists',
      message: `${target} is a folder; --force replaces only a file, so choose a file name for -o`,
    });
  }
}

function outputExists(target: string): BundleError {
  return new BundleError({
    code: 'output_exists',
    message: `${target} already exists; choose another -o or pass --force to replace it`,
  });
}

/**
 * Writes the archive of `entries` at `target` through the workspace's atomic file writer (a temp file beside it,
 * `check`ed before the rename); maps its outcomes to bundle refusals. Returns the bytes written.
 */
export async function writeBundleFile(
  target: string,
  force: boolean,
  entries: readonly ArchiveEntry[],
  check: (temp: string) => Promise<void>,
): Promise<number> {
  let written;
  try {
    written = await writeFileAtomically(target, (handle) => writeBundleArchive(handle, entries), {
      replace: force,
      check,
    });
  } catch (error) {
    if (error instanceof WorkspaceError && error.syscall === 'open') {
      throw new BundleError({
        code: 'output_unwritable',
        message: `cannot create a file in ${dirname(target)} (${error.code}); create the folder or choose another -o`,
        cause: error,
      });
    }
    throw error;
  }
  if (written.status === 'exists') throw outputExists(target);
  return written.bytes;
}
