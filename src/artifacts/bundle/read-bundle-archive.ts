import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { Parser } from 'tar';
import type { ReadEntry } from 'tar';
import { describeError } from '../../project/index.js';
import { BundleError } from './bundle-error.js';
import { BUNDLE_MANIFEST_PATH, bundleManifestSchema } from './bundle-manifest.js';
import type { BundleManifest } from './bundle-manifest.js';
import { contentHashOf } from '../content-hash.js';
import { judgeBundleEntry } from './judge-bundle-entry.js';
import { pathCollisionKey } from '../../workspace/index.js';

/** A bundle read whole and checked entry by entry: every path judged, every object's bytes matching its name. */
export interface BundleArchive {
  readonly manifest: BundleManifest;
  /** Run files by project-relative path, in archive order. */
  readonly runFiles: ReadonlyMap<string, Uint8Array>;
  /** Run folders (project-relative, no trailing '/'), in archive order. */
  readonly runDirectories: readonly string[];
  /** Object bytes by content hash, each verified against the hash its path names. */
  readonly objects: ReadonlyMap<string, Uint8Array>;
}

/** Default limit of {@link readBundleArchive}: the uncompressed tar may hold at most 1 GiB. */
export const DEFAULT_MAX_BUNDLE_BYTES = 1024 ** 3;

// A gzip or zstd stream inside the gzip: node-tar would quietly decompress it again, past the size limit.
const NESTED_COMPRESSION = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];

/**
 * Reads a gzip tar bundle into memory (at most `maxBytes` uncompressed) through node-tar's Parser, judging
 * each entry's raw path and type as it arrives; throws a {@link BundleError} at the first entry that breaks a
 * rule. Nothing is written.
 */
export async function readBundleArchive(bundleFile: string, maxBytes: number): Promise<BundleArchive> {
  const state = new ArchiveState();
  const parser = new Parser({ strict: true });
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
  const parsed = new Promise<void>((resolveParsed) => {
    parser.once('end', resolveParsed);
    parser.once('error', () => {
      resolveParsed();
    });
  });

  let total = 0;
  let head = Buffer.alloc(0);
  try {
    await pipeline(createReadStream(bundleFile), createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        total += chunk.length;
        if (total > maxBytes) {
          state.fail(
            new BundleError({
              code: 'too_large',
              message: `${bundleFile} holds more than ${maxBytes} bytes uncompressed; raise the limit (maxBytes) if you trust it`,
            }),
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
        parser.write(chunk);
        state.throwIfFailed();
      }
    });
  } catch (error) {
    // The refusal that stopped the stream, not the abort error node's pipeline reports for it.
    state.throwIfFailed();
    const why = errnoLike(error)
      ? `it cannot be read (${(error as NodeJS.ErrnoException).code ?? ''}); check the path`
      : `it is not an intact gzip file (${describeError(error)})`;
    throw notABundle(bundleFile, why, error);
  }
  parser.end();
  await parsed;
  state.throwIfFailed();
  return state.finish(bundleFile);
}

/** What the archive has yielded so far, and the first refusal. */
class ArchiveState {
  private failure: BundleError | undefined;
  private count = 0;
  private manifest: BundleManifest | undefined;
  private readonly runFiles = new Map<string, Uint8Array>();
  private readonly runDirectories: string[] = [];
  private readonly objects = new Map<string, Uint8Array>();
  private readonly kinds = new Map<string, 'file' | 'folder'>();

  fail(error: BundleError): void {
    this.failure ??= error;
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure;
  }

  onEntry(entry: ReadEntry): void {
    const index = this.count++;
    if (this.failure !== undefined) {
      entry.resume();
      return;
    }
    // The archive's own spelling (pax or GNU long path first), unsanitised; not header.path (see decisions).
    const raw = entry.path;
    if (index === 0 && (raw !== BUNDLE_MANIFEST_PATH || entry.type !== 'File')) {
      this.fail(
        new BundleError({
          code: 'missing_manifest',
          entry: raw,
          message: `the first entry is ${JSON.stringify(raw)}, not ${BUNDLE_MANIFEST_PATH}; this is not a bundle made by 'artifact-ingest bundle'`,
        }),
      );
      entry.resume();
      return;
    }
    const verdict =
      index === 0
        ? ({ kind: 'manifest' } as const)
        : judgeBundleEntry(raw, entry.type, entry.linkpath, this.manifest?.runId);
    if (verdict instanceof BundleError) {
      this.fail(verdict);
      entry.resume();
      return;
    }
    if (verdict.kind !== 'manifest') {
      const clash = this.claim(verdict.path, verdict.kind === 'runDirectory' ? 'folder' : 'file', raw);
      if (clash !== undefined) {
        this.fail(clash);
        entry.resume();
        return;
      }
    }
    if (verdict.kind === 'runDirectory') {
      this.runDirectories.push(verdict.path);
      entry.resume();
      return;
    }
    const chunks: Buffer[] = [];
    entry.on('data', (chunk: Buffer) => chunks.push(chunk));
    entry.on('end', () => {
      const bytes = Buffer.concat(chunks);
      switch (verdict.kind) {
        case 'manifest':
          this.readManifest(bytes);
          return;
        case 'runFile':
          this.runFiles.set(verdict.path, bytes);
          return;
        case 'object':
          this.checkObject(verdict.path, verdict.hash, bytes);
          return;
      }
    });
  }

  finish(bundleFile: string): BundleArchive {
    if (this.manifest === undefined) {
      throw new BundleError({
        code: 'missing_manifest',
        message: `${bundleFile} has no ${BUNDLE_MANIFEST_PATH}; this is not a bundle made by 'artifact-ingest bundle'`,
      });
    }
    return {
      manifest: this.manifest,
      runFiles: this.runFiles,
      runDirectories: this.runDirectories,
      objects: this.objects,
    };
  }

  /** Records `path` as a file or folder, refusing a second entry for it or a path below a file. */
  private claim(path: string, kind: 'file' | 'folder', raw: string): BundleError | undefined {
    // Keys fold case and normalization: two names one filesystem treats as the same file are one entry.
    const key = pathCollisionKey(path);
    const segments = key.split('/');
    for (let length = 1; length < segments.length; length += 1) {
      const ancestor = segments.slice(0, length).join('/');
      if (this.kinds.get(ancestor) === 'file') {
        return duplicate(raw, `lies below ${ancestor}, which the bundle holds as a file`);
      }
    }
    if (this.kinds.has(key)) return duplicate(raw, 'names a path the bundle already holds');
    this.kinds.set(key, kind);
    return undefined;
  }

  private readManifest(bytes: Buffer): void {
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      this.fail(invalidManifest('it is not JSON'));
      return;
    }
    const parsed = bundleManifestSchema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((issue) =>
        issue.path.length === 0 ? issue.message : `${issue.path.map(String).join('.')}: ${issue.message}`,
      );
      this.fail(invalidManifest(issues.join('; ')));
      return;
    }
    this.manifest = parsed.data;
  }

  private checkObject(path: string, hash: string, bytes: Buffer): void {
    const actual = contentHashOf(bytes);
    if (actual !== hash) {
      this.fail(
        new BundleError({
          code: 'hash_mismatch',
          entry: path,
          message: `object ${path} holds bytes that hash to ${actual}, not to its name; the bundle is damaged or tampered with, so get a fresh copy`,
        }),
      );
      return;
    }
    this.objects.set(hash, bytes);
  }
}

function duplicate(raw: string, why: string): BundleError {
  return new BundleError({
    code: 'duplicate_entry',
    entry: raw,
    message: `entry ${JSON.stringify(raw)} ${why}; a bundle holds each path once, so get a fresh copy`,
  });
}

function invalidManifest(why: string): BundleError {
  return new BundleError({
    code: 'invalid_manifest',
    entry: BUNDLE_MANIFEST_PATH,
    message: `${BUNDLE_MANIFEST_PATH} is invalid: ${why}; make the bundle again with 'artifact-ingest bundle'`,
  });
}

function notABundle(bundleFile: string, why: string, cause?: unknown): BundleError {
  return new BundleError({
    code: 'not_a_bundle',
    message: `${bundleFile} is not a bundle: ${why}; pass a .tar.gz made by 'artifact-ingest bundle'`,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Whether an error is the file system's (the read stream) rather than zlib's. */
function errnoLike(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^E[A-Z]+$/.test(code);
}
