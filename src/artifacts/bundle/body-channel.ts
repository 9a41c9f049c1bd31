/**
 * An entry's body on its way from the tar parser (which pushes) to a consumer (which pulls), holding only what
 * arrived since the consumer last took: the scan waits for {@link BodyChannel.emptied} before reading on.
 */
export class BodyChannel implements AsyncIterable<Buffer> {
  private readonly queue: Buffer[] = [];
  private ended = false;
  private failure: Error | undefined;
  private abandoned = false;
  private wake: (() => void) | undefined;
  private waitingForEmpty: (() => void)[] = [];

  /** Queues a chunk for the consumer; dropped once the consumer stopped reading. */
  push(chunk: Buffer): void {
    if (this.abandoned || this.ended) return;
    this.queue.push(chunk);
    this.notify();
  }

  /** The body is complete: the consumer's loop ends after the last chunk. */
  end(): void {
    this.ended = true;
    this.notify();
  }

  /** The body will not complete: the consumer's loop throws `error`, so it keeps nothing. */
  fail(error: Error): void {
    if (this.ended) return;
    this.failure ??= error;
    this.ended = true;
    this.queue.length = 0;
    this.notify();
  }

  /** The consumer is done (it finished or gave up): nothing more is queued, and no one waits for it. */
  abandon(): void {
    this.abandoned = true;
    this.queue.length = 0;
    this.flushEmpty();
  }

  /** Resolves once the consumer has taken every queued chunk. */
  emptied(): Promise<void> {
    if (this.queue.length === 0 || this.abandoned) return Promise.resolve();
    return new Promise((resolve) => this.waitingForEmpty.push(resolve));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    for (;;) {
      if (this.failure !== undefined) throw this.failure;
      const chunk = this.queue.shift();
      if (chunk !== undefined) {
        if (this.queue.length === 0) this.flushEmpty();
        yield chunk;
        continue;
      }
      if (this.ended) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
    }
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private flushEmpty(): void {
    const waiting = this.waitingForEmpty;
    this.waitingForEmpty = [];
    for (const resolve of waiting) resolve();
  }
}
