import { pathCollisionKey } from '../workspace/index.js';

/**
 * The blocks a streaming ingest has sent to the placing thread and not yet had answered (D135): how many, their
 * bytes, and their paths as a filesystem may fold them.
 */
export class InFlightBlocks {
  count = 0;
  bytes = 0;
  private readonly keys = new Map<string, number>();

  add(path: string, size: number): void {
    this.count += 1;
    this.bytes += size;
    const key = pathCollisionKey(path);
    this.keys.set(key, (this.keys.get(key) ?? 0) + 1);
  }

  remove(path: string, size: number): void {
    this.count -= 1;
    this.bytes -= size;
    const key = pathCollisionKey(path);
    const left = (this.keys.get(key) ?? 1) - 1;
    if (left === 0) this.keys.delete(key);
    else this.keys.set(key, left);
  }

  /** Whether a block in flight names `path`, or a path a case-insensitive filesystem merges with it. */
  holds(path: string): boolean {
    return this.keys.has(pathCollisionKey(path));
  }
}
