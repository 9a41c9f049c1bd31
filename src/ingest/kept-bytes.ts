import type { ObjectStore, Project } from '../store/index.js';

/**
 * The bytes a streaming ingest holds in memory for its end; the blocks' bytes past them wait in the project's
 * object store (D133).
 */
export const STREAM_HELD_BYTES = 4 * 1024 * 1024;

/**
 * Where a streaming ingest keeps the bytes it needs again at its end (each block's, for the whole-document rules,
 * and each placed file's, for its records): in memory while they stay within a budget, past it in the project's
 * object store, content-addressed, where the records store them anyway. So the memory a stream holds follows the
 * budget and its largest block, not its document. What {@link KeptBytes.keep} returns stands in for the bytes: the
 * bytes themselves, or an empty array that {@link KeptBytes.read} turns back into them.
 */
export class KeptBytes {
  private held = 0;
  /** Each array kept, and what stands in for it (itself while it is held in memory). */
  private readonly standIns = new WeakMap<Uint8Array, Uint8Array>();
  /** Each stand-in of bytes in the object store, and their content hash. */
  private readonly stored = new WeakMap<Uint8Array, string>();
  private objects: Promise<ObjectStore | undefined> | undefined;

  constructor(
    private readonly project: Project,
    private readonly durability: 'fsync' | 'none',
    private readonly budget = STREAM_HELD_BYTES,
  ) {}

  /**
   * Keeps `bytes` for the end: held while the bytes held stay within the budget, else stored. Bytes that cannot be
   * stored (no writable object store) are held all the same: memory grows, nothing is lost. Keeping the same array
   * again returns its first stand-in.
   */
  async keep(bytes: Uint8Array): Promise<Uint8Array> {
    const known = this.standIns.get(bytes);
    if (known !== undefined) return known;
    let standIn = bytes;
    if (this.held + bytes.byteLength > this.budget) {
      const hash = await this.store(bytes);
      if (hash !== undefined) {
        standIn = new Uint8Array(0);
        this.stored.set(standIn, hash);
      }
    }
    if (standIn === bytes) this.held += bytes.byteLength;
    this.standIns.set(bytes, standIn);
    return standIn;
  }

  /** Whether `bytes` stand for bytes in the object store, to {@link KeptBytes.read} back before use. */
  isStored(bytes: Uint8Array): boolean {
    return this.stored.has(bytes);
  }

  /** The bytes `kept` stands for: read back from the object store, and checked against their hash, when stored. */
  async read(kept: Uint8Array): Promise<Uint8Array> {
    const hash = this.stored.get(kept);
    if (hash === undefined) return kept;
    const objects = await this.objects;
    if (objects === undefined) throw new Error('the object store is not open');
    return objects.get(hash);
  }

  /** Releases the object store, when one was opened; never throws. */
  async close(): Promise<void> {
    await (await this.objects)?.close().catch(() => undefined);
  }

  private async store(bytes: Uint8Array): Promise<string | undefined> {
    this.objects ??= this.project.store.openObjects({ durability: this.durability }).catch(() => undefined);
    const objects = await this.objects;
    return objects?.put(bytes).then(
      (put) => put.hash,
      () => undefined,
    );
  }
}
