import { redactSecrets } from '../../events/index.js';

/** Lines of stderr an error message shows. */
const MAX_LINES = 20;
/** Characters of stderr an error message shows. */
const MAX_CHARS = 2048;
// Kept raw bytes: enough for 20 long lines, so redaction sees whole secrets before the cut to 2 KB.
const KEPT_BYTES = 16 * 1024;

/** The last lines of a child's stderr, kept in bounded memory however much the child writes. */
export class StderrTail {
  readonly #chunks: Buffer[] = [];
  #keptBytes = 0;
  #dropped = false;

  /** Adds a chunk, forgetting the oldest bytes beyond what the excerpt can need. */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#keptBytes += chunk.length;
    let oldest = this.#chunks[0];
    while (oldest !== undefined && this.#keptBytes - oldest.length >= KEPT_BYTES) {
      this.#chunks.shift();
      this.#keptBytes -= oldest.length;
      this.#dropped = true;
      oldest = this.#chunks[0];
    }
  }

  /** The last 20 lines, at most 2 KB, with credentials redacted; `''` when stderr was empty. */
  excerpt(): string {
    const bytes = Buffer.concat(this.#chunks);
    const truncated = this.#dropped || bytes.length > KEPT_BYTES;
    let text = bytes.subarray(Math.max(0, bytes.length - KEPT_BYTES)).toString('utf8');
    // A cut mid-line (or mid-character) leaves a fragment that would read as a whole line.
    if (truncated) text = text.slice(text.indexOf('\n') + 1);
    const lines = redactSecrets(text).replace(/\s+$/, '').split(/\r?\n/);
    let excerpt = lines.slice(-MAX_LINES).join('\n');
    if (excerpt.length > MAX_CHARS) excerpt = `…${excerpt.slice(-MAX_CHARS)}`;
    return excerpt;
  }
}
