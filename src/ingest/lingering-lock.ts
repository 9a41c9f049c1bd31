import type { ProjectRef } from '../store/index.js';
import { holdWorkspaceLock } from './hold-workspace-lock.js';
import type { HeldWork } from './hold-workspace-lock.js';

/** How long the lock stays held after a block is placed, for the next block of a burst. */
const LINGER_MS = 20;
/** The longest one hold lasts, however fast blocks come: another ingest waits at most about this long. */
const MAX_HOLD_MS = 250;

/**
 * The workspace lock for a streaming ingest's blocks, one at a time: taken for a block, and kept a few
 * milliseconds after it for the next, so a burst of blocks (a model answering fast, a document piped in) takes
 * it once instead of once per block. It is let go after {@link LINGER_MS} without a block, after
 * {@link MAX_HOLD_MS} held, and by `release` (before the end takes it to record the document). No records are
 * written under it.
 */
export class LingeringLock {
  private held:
    { readonly release: () => void; readonly done: Promise<unknown>; readonly since: number } | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `beforeRelease` runs under the lock each time it is let go (a batch of writes made under it is finished). */
  constructor(
    private readonly project: ProjectRef,
    private readonly beforeRelease: () => Promise<void> = () => Promise.resolve(),
  ) {}

  /** Runs `work` under the lock (taking it unless held); callers run one `work` at a time. */
  async run<T>(work: () => Promise<T>): Promise<HeldWork<T>> {
    clearTimeout(this.timer);
    if (this.held !== undefined && performance.now() - this.held.since > MAX_HOLD_MS) await this.release();
    if (this.held === undefined) {
      const taken = await this.take();
      if (taken !== undefined) return taken;
    }
    try {
      return { outcome: 'done', value: await work() };
    } finally {
      this.timer = setTimeout(() => void this.release(), LINGER_MS);
      this.timer.unref();
    }
  }

  /** Lets the lock go (a no-op when not held). */
  async release(): Promise<void> {
    clearTimeout(this.timer);
    const held = this.held;
    this.held = undefined;
    if (held === undefined) return;
    try {
      await this.beforeRelease();
    } finally {
      held.release();
      await held.done;
    }
  }

  /** Takes the lock and keeps it until `release`; returns why not when it cannot. */
  private async take(): Promise<Exclude<HeldWork<never>, { outcome: 'done' }> | undefined> {
    let release = (): void => undefined;
    let acquired: (taken: boolean) => void = () => undefined;
    const taken = new Promise<boolean>((resolve) => (acquired = resolve));
    const done = holdWorkspaceLock(
      this.project,
      () => {
        acquired(true);
        return new Promise<void>((resolve) => (release = resolve));
      },
      { records: false },
    );
    const outcome = done.then(
      (held) => {
        acquired(false);
        return held;
      },
      (error: unknown) => {
        acquired(false);
        throw error;
      },
    );
    if (!(await taken)) {
      const held = await outcome;
      if (held.outcome !== 'done') return held;
      throw new Error('the workspace lock was let go before it was held');
    }
    this.held = { release, done: outcome, since: performance.now() };
    return undefined;
  }
}
