import path from 'node:path';
import type { FileHandle } from 'node:fs/promises';
import { describeError } from '../../project/index.js';
import { mkdir } from '../quick-fs.js';
import { writeFileAtomically } from './write-file-atomically.js';

/**
 * A file saved as its text streams in (a streaming ingest's document): the chunks go to a temp file beside the
 * target in batches, so the text is never held whole; `commit` moves the temp file into place atomically,
 * `discard` removes it (a cut-off document is not saved). The first failure is kept and reported by `commit`; later chunks are
 * then dropped, and nothing is placed.
 */
export class SpooledFile {
  private readonly opened: Promise<FileHandle>;
  private readonly placed: Promise<unknown>;
  /**
   * The temp file once open, or undefined once saving has failed or ended: one race for every batch, since each
   * race left waiting on `placed` would keep its batch's bytes until the end.
   */
  private readonly handle: Promise<FileHandle | undefined>;
  private settle: ((ending: { readonly keep: boolean }) => void) | undefined;
  private writing: Promise<void> = Promise.resolve();
  /** Chunks not yet written (well-formed text): a model's chunks are a few bytes each, so they go in batches. */
  private pending: string[] = [];
  private pendingLength = 0;
  /** Batches handed to the file and not yet written. */
  private unwritten = 0;
  private bytes = 0;
  private failure: unknown;

  constructor(target: string, durability: 'fsync' | 'none') {
    let open: (handle: FileHandle) => void = () => undefined;
    this.opened = new Promise((resolve) => (open = resolve));
    const ending = new Promise<{ readonly keep: boolean }>((resolve) => (this.settle = resolve));
    this.placed = (async () => {
      await mkdir(path.dirname(target), { recursive: true });
      return writeFileAtomically(
        target,
        async (handle) => {
          open(handle);
          const { keep } = await ending;
          if (keep) this.flush();
          await this.writing;
          if (!keep) throw new Discarded();
          if (this.failure !== undefined)
            throw new Error(describeError(this.failure), { cause: this.failure });
          return this.bytes;
        },
        { replace: true, durability },
      );
    })();
    // Seen by commit and discard; until then an early failure (no docs/ folder) must not go unhandled.
    this.placed.catch((error: unknown) => {
      this.failure ??= error;
    });
    this.handle = Promise.race([
      this.opened,
      this.placed.then(
        () => undefined,
        () => undefined,
      ),
    ]);
  }

  /**
   * Appends a chunk, after those before it, as UTF-8 (so its text must be well-formed: a lone surrogate would
   * become U+FFFD here, not where the reader sees it); a failure is kept for `commit`. Returns a promise when the
   * caller should wait before the next chunk: a batch is still being written and another one is full (so a writer
   * faster than the disk, or one that never lets the event loop run, holds two batches, not the whole text).
   */
  write(text: string): Promise<void> | undefined {
    if (text === '') return undefined;
    this.pending.push(text);
    this.pendingLength += text.length;
    if (this.pendingLength < SPOOL_BATCH_LENGTH) return undefined;
    this.flush();
    return this.unwritten > 1 ? this.writing : undefined;
  }

  /** Writes the chunks held so far, in one write after those before it. */
  private flush(): void {
    if (this.pendingLength === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingLength = 0;
    this.unwritten += 1;
    this.writing = this.writing.then(async () => {
      try {
        if (this.failure !== undefined) return;
        const handle = await this.handle;
        if (handle === undefined) return;
        await handle.write(bytes);
        this.bytes += bytes.byteLength;
      } catch (error) {
        this.failure ??= error;
      } finally {
        this.unwritten -= 1;
      }
    });
  }

  /** Places the whole document at its path; throws what kept it from being saved. */
  async commit(): Promise<void> {
    this.settle?.({ keep: true });
    try {
      await this.placed;
    } catch (error) {
      throw new Error(describeError(this.failure ?? error), { cause: error });
    }
  }

  /** Removes the temp file: nothing is saved. */
  async discard(): Promise<void> {
    this.settle?.({ keep: false });
    await this.placed.catch(() => undefined);
  }
}

/** How many UTF-16 units are held before they are written: the memory the file's text costs while it streams. */
const SPOOL_BATCH_LENGTH = 64 * 1024;

class Discarded extends Error {
  constructor() {
    super('the document was cut off: it is not saved');
  }
}
