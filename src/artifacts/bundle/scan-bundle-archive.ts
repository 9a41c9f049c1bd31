import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Parser, ReadEntry } from 'tar';
import { DEFAULT_INGEST_LIMITS } from '../../config/index.js';
import { describeError } from '../../project/index.js';
import { pathCollisionKey } from '../../workspace/index.js';
import { BundleError } from './bundle-error.js';
import { BUNDLE_MANIFEST_PATH, bundleManifestSchema } from './bundle-manifest.js';
import type { BundleManifest } from './bundle-manifest.js';
import { BodyChannel } from './body-channel.js';
import { judgeBundleEntry } from './judge-bundle-entry.js';
import { tarModule } from './tar-module.js';
import type { BundleEntryVerdict } from './judge-bundle-entry.js';

/** How much a bundle may expand to: all entries together, one run file, one object. */
export interface BundleLimits {
  /** Most bytes of the uncompressed tar, and of its entries' sizes together. */
  readonly maxBytes: number;
  /** Most bytes of one run file (or of bundle.json). */
  readonly maxFileBytes: number;
  /** Most bytes of one object. */
  readonly maxObjectBytes: number;
}

/**
 * Defaults of {@link BundleLimits}: 1 GiB in all; 64 MiB per run file (a long run's events.jsonl); per object the
 * ingest's max_document_bytes (16 MiB), since every object is a node document or a block of one.
 */
export const DEFAULT_BUNDLE_LIMITS: BundleLimits = Object.freeze({
  maxBytes: 1024 ** 3,
  maxFileBytes: 64 * 1024 * 1024,
  maxObjectBytes: DEFAULT_INGEST_LIMITS.maxDocumentBytes,
});

/** One file entry of the archive (a run file or an object), hashed as it streamed by. */
export interface ScannedFile {
  readonly verdict: Extract<BundleEntryVerdict, { kind: 'runFile' | 'object' }>;
  /** sha256 of its bytes, 64 hex digits. */
  readonly sha256: string;
  readonly size: number;
  /** Its bytes, when the scan was asked to keep them (one entry at a time). */
  readonly bytes: Buffer | undefined;
}

/** What the scan needs from its caller. */
export interface ScanOptions {
  /** Whether to hand a file's bytes to `onFile`; anything else is hashed and dropped as it streams. */
  readonly keep: (verdict: ScannedFile['verdict']) => boolean;
  /**
   * A consumer to stream a file's body to as it arrives (never kept), or undefined; it starts once the files
   * before have settled, and the scan reads no further until it has taken what arrived. `onFile` follows it.
   */
  readonly stream?: (
    verdict: ScannedFile['verdict'],
  ) => ((body: AsyncIterable<Buffer>) => Promise<void>) | undefined;
  /** Called once per file entry, in archive order; the scan reads no further until it settles. */
  readonly onFile: (file: ScannedFile) => void | Promise<void>;
}

/** The manifest and folders of a scanned archive. */
export interface ScannedArchive {
  readonly manifest: BundleManifest;
  /** Run folders (project-relative, no trailing '/'), in archive order. */
  readonly runDirectories: readonly string[];
}

// A gzip or zstd stream inside the gzip: node-tar would quietly decompress it again, past the size limit.
const NESTED_COMPRESSION = [Buffer.from([0x1f, 0x8b]), Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];

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
  try {
    await pipeline(createReadStream(bundleFile), createGunzip(), async (chunks: AsyncIterable<Buffer>) => {
      for await (const chunk of chunks) {
        total += chunk.length;
        if (total > limits.maxBytes) {
          state.fail(tooLarge(`${bundleFile} holds more than ${String(limits.maxBytes)} bytes uncompressed`));
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
        // Backpressure: the entries this chunk completed are handled before the next chunk is read.
        await state.settle();
        state.throwIfFailed();
      }
    });
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
  return state.finish();
}

/** What the archive has yielded so far, and the first refusal. */
class ScanState {
  private failure: BundleError | undefined;
  /** An error of `onFile` that is not a refusal (an I/O error of a write): it is thrown as it is. */
  private fault: { readonly error: unknown } | undefined;
  private count = 0;
  private declared = 0;
  private manifest: BundleManifest | undefined;
  private readonly runDirectories: string[] = [];
  private readonly kinds = new Map<string, 'file' | 'folder'>();
  /** The `onFile` calls so far, each after the one before. */
  private chain: Promise<void> = Promise.resolve();
  /** The body being streamed to a consumer, and that consumer's work. */
  private streaming: { readonly body: BodyChannel; readonly consumed: Promise<void> } | undefined;

  constructor(
    private readonly limits: BundleLimits,
    private readonly options: ScanOptions,
    private readonly bundleFile: string,
  ) {}

  fail(error: BundleError): void {
    this.failure ??= error;
  }

  throwIfFailed(): void {
    if (this.fault !== undefined) throw this.fault.error;
    if (this.failure !== undefined) throw this.failure;
  }

  /** Waits for every file handed to `onFile` so far, and for the streaming consumer to take what arrived. */
  async settle(): Promise<void> {
    await this.chain;
    const streaming = this.streaming;
    if (streaming !== undefined) await Promise.race([streaming.body.emptied(), streaming.consumed]);
  }

  /** Whether a refusal was recorded (a method, so that a check after an await is not narrowed away). */
  private isRefused(): boolean {
    return this.failure !== undefined;
  }

  /** Ends a body still streaming with an error (its consumer discards its work) and waits for its consumer. */
  async stopStreaming(): Promise<void> {
    const streaming = this.streaming;
    if (streaming === undefined) return;
    streaming.body.fail(new Error('the bundle scan stopped before this entry ended'));
    await streaming.consumed;
    await this.chain.catch(() => undefined);
  }

  /** Runs `work` after the files before it, turning a refusal into the scan's failure and anything else into a fault. */
  private after(previous: Promise<void>, work: () => Promise<void>): Promise<void> {
    return previous.then(async () => {
      if (this.failure !== undefined || this.fault !== undefined) return;
      try {
        await work();
      } catch (error) {
        if (error instanceof BundleError) this.fail(error);
        // A consumer whose body failed because the scan refused the bundle: the refusal is the cause to report.
        else if (!this.isRefused()) this.fault ??= { error };
      }
    });
  }

  onEntry(entry: ReadEntry): void {
    const index = this.count++;
    if (this.failure !== undefined || this.fault !== undefined) {
      entry.resume();
      return;
    }
    // The archive's own spelling (pax or GNU long path first), unsanitised; not header.path (see decisions).
    const raw = entry.path;
    if (index === 0 && (raw !== BUNDLE_MANIFEST_PATH || entry.type !== 'File')) {
      this.refuse(
        entry,
        new BundleError({
          code: 'missing_manifest',
          entry: raw,
          message: `the first entry is ${JSON.stringify(raw)}, not ${BUNDLE_MANIFEST_PATH}; this is not a bundle made by 'artifact-ingest bundle'`,
        }),
      );
      return;
    }
    const verdict =
      index === 0
        ? ({ kind: 'manifest' } as const)
        : judgeBundleEntry(raw, entry.type, entry.linkpath, this.manifest?.runId);
    if (verdict instanceof BundleError) {
      this.refuse(entry, verdict);
      return;
    }
    if (verdict.kind !== 'manifest') {
      const clash = this.claim(verdict.path, verdict.kind === 'runDirectory' ? 'folder' : 'file', raw);
      if (clash !== undefined) {
        this.refuse(entry, clash);
        return;
      }
    }
    if (verdict.kind === 'runDirectory') {
      this.runDirectories.push(verdict.path);
      entry.resume();
      return;
    }
    // The header's size, before a byte of the body is read: a bundle cannot make the import read 900 MiB first.
    const oversize = this.checkSize(raw, verdict.kind, entry.size);
    if (oversize !== undefined) {
      this.refuse(entry, oversize);
      return;
    }
    let consume: ((body: AsyncIterable<Buffer>) => Promise<void>) | undefined;
    try {
      consume = verdict.kind === 'manifest' ? undefined : this.options.stream?.(verdict);
    } catch (error) {
      if (!(error instanceof BundleError)) throw error;
      this.refuse(entry, error);
      return;
    }
    const keep = verdict.kind === 'manifest' || (consume === undefined && this.options.keep(verdict));
    const hash = createHash('sha256');
    // One buffer of the header's size (checked above), filled as the body streams: no second copy by concat.
    const kept = keep ? Buffer.allocUnsafe(entry.size) : undefined;
    let size = 0;
    let body: BodyChannel | undefined;
    let consumed: Promise<void> | undefined;
    if (consume !== undefined) {
      const channel = new BodyChannel();
      body = channel;
      consumed = this.after(this.chain, () => consume(channel)).finally(() => {
        channel.abandon();
      });
      this.streaming = { body: channel, consumed };
    }
    entry.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      kept?.set(chunk, size);
      body?.push(chunk);
      size += chunk.length;
    });
    entry.on('end', () => {
      if (this.failure !== undefined || this.fault !== undefined) {
        body?.fail(new Error('the bundle was refused before this entry ended'));
        return;
      }
      // An object's hash is checked before its consumer sees the end, so a mismatch is never renamed into place.
      const digest = hash.digest('hex');
      if (verdict.kind === 'object' && `sha256:${digest}` !== verdict.hash) {
        body?.fail(new Error(`object ${verdict.path} does not hash to its name`));
      } else {
        body?.end();
      }
      const bytes = kept?.subarray(0, size);
      if (verdict.kind === 'manifest') {
        this.readManifest(bytes ?? Buffer.alloc(0));
        return;
      }
      const sha256 = digest;
      if (verdict.kind === 'object' && `sha256:${sha256}` !== verdict.hash) {
        this.fail(
          new BundleError({
            code: 'hash_mismatch',
            entry: verdict.path,
            message: `object ${verdict.path} holds bytes that hash to sha256:${sha256}, not to its name; the bundle is damaged or tampered with, so get a fresh copy`,
          }),
        );
        return;
      }
      // One call at a time, in archive order; none after a refusal or fault.
      if (consumed !== undefined && this.streaming?.consumed === consumed) this.streaming = undefined;
      this.chain = this.after(consumed ?? this.chain, () =>
        Promise.resolve(this.options.onFile({ verdict, sha256, size, bytes })),
      );
    });
  }

  finish(): ScannedArchive {
    if (this.manifest === undefined) {
      throw new BundleError({
        code: 'missing_manifest',
        message: `${this.bundleFile} has no ${BUNDLE_MANIFEST_PATH}; this is not a bundle made by 'artifact-ingest bundle'`,
      });
    }
    return { manifest: this.manifest, runDirectories: this.runDirectories };
  }

  private refuse(entry: ReadEntry, error: BundleError): void {
    this.fail(error);
    entry.resume();
  }

  /** Refuses an entry whose header size is past its kind's limit, or that takes the entries past maxBytes. */
  private checkSize(
    raw: string,
    kind: 'manifest' | 'runFile' | 'object',
    size: number,
  ): BundleError | undefined {
    const [limit, key] =
      kind === 'object'
        ? [this.limits.maxObjectBytes, 'maxObjectBytes (--max-object-bytes)']
        : [this.limits.maxFileBytes, 'maxFileBytes (--max-file-bytes)'];
    if (size > limit) {
      return tooLarge(
        `entry ${JSON.stringify(raw)} is ${String(size)} bytes, over ${key} of ${String(limit)}`,
        raw,
      );
    }
    this.declared += size;
    if (this.declared > this.limits.maxBytes) {
      return tooLarge(
        `entry ${JSON.stringify(raw)} takes the bundle's entries to ${String(this.declared)} bytes, over maxBytes (--max-bytes) of ${String(this.limits.maxBytes)}`,
        raw,
      );
    }
    return undefined;
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
}

function tooLarge(what: string, entry?: string): BundleError {
  return new BundleError({
    code: 'too_large',
    ...(entry === undefined ? {} : { entry }),
    message: `${what}; nothing was written. Raise the limit if you trust the bundle`,
  });
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
