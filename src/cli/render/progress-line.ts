import type { CliWriter } from '../cli-io.js';

/** A one-line progress display on a terminal (stderr); silent when stderr is not a TTY. */
export interface ProgressLine {
  update(done: number, total: number, label: string): void;
  clear(): void;
}

/** Creates a progress line on `stream` that redraws in place and clears itself when done. */
export function progressLine(stream: CliWriter): ProgressLine {
  const active = stream.isTTY === true;
  let drawn = false;
  const width = (): number => Math.max(20, (stream.columns ?? 80) - 1);
  return {
    update(done, total, label) {
      if (!active) return;
      const text = `[${done}/${total}] ${label}`;
      stream.write(`\r${text.length > width() ? `${text.slice(0, width() - 1)}…` : text.padEnd(width())}`);
      drawn = true;
    },
    clear() {
      if (active && drawn) stream.write(`\r${' '.repeat(width())}\r`);
      drawn = false;
    },
  };
}
