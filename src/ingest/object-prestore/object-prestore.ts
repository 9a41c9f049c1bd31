import path from 'node:path';
import { AGENT_DIR } from '../../project/index.js';
import type { Project } from '../../store/index.js';
import { objectWriterThread } from './object-writer-thread.js';
import type { ObjectWriter } from './object-writer-thread.js';

/** The bytes a stream holds waiting for the object writer thread, at most (past them, its records write them). */
export const PRESTORE_PENDING_BYTES = 1024 * 1024;

/**
 * A stream sends nothing to the thread (nor starts it) before it has placed this many files, or
 * {@link PRESTORE_START_BYTES}: the records of a short answer write its few objects sooner than a thread starts.
 */
export const PRESTORE_START_FILES = 32;
export const PRESTORE_START_BYTES = 256 * 1024;

/**
 * A streaming ingest's placed files stored as objects while it goes on reading, in the object writer thread
 * (D134), so its records at the end find them stored: once the stream has placed enough to be worth it, each file
 * is sent as it is placed, those placed while a batch is on its way together in the next one. Best effort: a file
 * not sent (the thread cannot start, or is behind by more than the pending bytes) or not stored is written by the
 * records as before.
 */
export class ObjectPrestore {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private inFlight: Promise<void> | undefined;
  /** Whether the stream has placed enough to send: files and bytes added so far count until then. */
  private started = false;
  private files = 0;
  private bytes = 0;

  constructor(
    private readonly projectDir: string,
    private readonly durability: 'fsync' | 'none',
    private readonly thread: ObjectWriter = objectWriterThread(),
  ) {}

  /** Sends a placed file's bytes to be stored, or holds them for the next batch while one is on its way. */
  add(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    // One file larger than the limit still goes alone; past the limit, the rest are left to the records.
    if (this.pending.length > 0 && this.pendingBytes + bytes.byteLength > PRESTORE_PENDING_BYTES) return;
    this.pending.push(bytes);
    this.pendingBytes += bytes.byteLength;
    if (!this.started) {
      this.files += 1;
      this.bytes += bytes.byteLength;
      this.started = this.files >= PRESTORE_START_FILES || this.bytes >= PRESTORE_START_BYTES;
      if (!this.started) return;
    }
    if (this.inFlight === undefined) this.send();
  }

  /**
   * Waits until what was sent is stored, sending what is held first: the records then find those objects
   * stored. A thread that has not loaded yet is not waited for (the records write the objects). Never rejects.
   */
  async settle(): Promise<void> {
    if (!this.started || !this.thread.ready) {
      this.pending = [];
      this.pendingBytes = 0;
      return;
    }
    if (this.inFlight === undefined) this.send();
    while (this.inFlight !== undefined) await this.inFlight;
  }

  private send(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    const sent = this.thread.write(this.projectDir, this.durability, batch);
    if (sent === undefined) return;
    this.inFlight = sent.then(() => {
      this.inFlight = undefined;
      this.send();
    });
  }
}

/**
 * The prestore of a stream whose records go to `project`'s store: only a files store, whose objects any thread
 * can write under `<project>/.agent/objects`; none for another store (its records write its objects).
 */
export function objectPrestoreFor(
  project: Project,
  durability: 'fsync' | 'none',
  writer?: ObjectWriter,
): ObjectPrestore | undefined {
  const { kind, location } = project.store;
  if (kind !== 'files' || path.basename(location) !== AGENT_DIR) return undefined;
  return new ObjectPrestore(path.dirname(location), durability, writer);
}
