import { createHash } from 'node:crypto';
import type { ReadEntry } from 'tar';
import { pathCollisionKey } from '../../workspace/index.js';
import { artifactRecordsPath } from '../../project/index.js';
import { BundleError } from './bundle-error.js';
import { BUNDLE_MANIFEST_PATH, bundleManifestSchema } from './bundle-manifest.js';
import type { BundleManifest } from './bundle-manifest.js';
import { BodyChannel } from './body-channel.js';
import { judgeBundleEntry } from './judge-bundle-entry.js';
import type { BundleLimits, ScannedArchive, ScanOptions } from './scan-types.js';

/** What the archive has yielded so far, and the first refusal. */
export class ScanState {
  /** node-tar's Parser read the end-of-archive marker. */
  parserEnded = false;
  private failure: BundleError | undefined;
  /** An error of `onFile` that is not a refusal (an I/O error of a write): it is thrown as it is. */
  private fault: { readonly error: unknown } | undefined;
  private count = 0;
  private declared = 0;
  /** The run's artifacts.jsonl went by. */
  private sawRecords = false;
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
    if (verdict.kind === 'runFile' && verdict.path === this.recordsPath()) this.sawRecords = true;
    if (verdict.kind === 'object' && !this.sawRecords && this.listsRecords()) {
      // The records come first: they say which objects are traces, whose content is judged as it streams by.
      this.refuse(
        entry,
        new BundleError({
          code: 'unexpected_entry',
          entry: raw,
          message: `object ${JSON.stringify(raw)} comes before the run's artifacts.jsonl; a bundle holds its run folder before its objects, so get a fresh copy`,
        }),
      );
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
      try {
        this.options.inspect?.({ verdict, sha256, size, bytes });
      } catch (error) {
        if (!(error instanceof BundleError)) throw error;
        this.fail(error);
        return;
      }
      // One call at a time, in archive order; none after a refusal or fault.
      if (consumed !== undefined && this.streaming?.consumed === consumed) this.streaming = undefined;
      this.chain = this.after(consumed ?? this.chain, () =>
        Promise.resolve(this.options.onFile({ verdict, sha256, size, bytes })),
      );
    });
  }

  /** The path of the run's artifacts.jsonl, once the manifest named the run. */
  private recordsPath(): string | undefined {
    return this.manifest === undefined ? undefined : artifactRecordsPath(this.manifest.runId);
  }

  /** Whether the manifest lists the run's artifacts.jsonl. */
  private listsRecords(): boolean {
    const path = this.recordsPath();
    return this.manifest?.files.some((file) => file.path === path) === true;
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

export function tooLarge(what: string, entry?: string): BundleError {
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
