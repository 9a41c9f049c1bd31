import type { WriteBatch } from '../workspace/index.js';
import type { IngestRoots } from './ingest-roots.js';

/**
 * The write batch of workspace/ that a streaming ingest's writes share under one hold of the workspace lock
 * (each folder walked once), finished when the lock is let go; only without durability: with fsync each block's
 * batch is finished (its folder synced) before its event. The stream and the thread placing its blocks (D135)
 * each keep one.
 */
export class LockBatch {
  private batch: WriteBatch | undefined;

  constructor(
    private readonly roots: IngestRoots,
    private readonly durability: 'fsync' | 'none',
  ) {}

  /** The options that make a write share the batch (made on first use); none with fsync, or without workspace/. */
  async options(): Promise<{ batch?: WriteBatch }> {
    if (this.durability !== 'none') return {};
    if (this.batch === undefined) {
      // A workspace/ that cannot be opened is applyPlans' io_error, reported there.
      const workspace = await this.roots.workspace().catch(() => undefined);
      if (workspace === undefined) return {};
      this.batch = workspace.writeBatch();
    }
    return { batch: this.batch };
  }

  /** Finishes the batch, if one was made; the next write makes another. */
  async finish(): Promise<void> {
    const batch = this.batch;
    this.batch = undefined;
    // Without durability a finish syncs nothing: it lets the folders it walked go.
    await batch?.finish();
  }
}
