/** Where a command writes text: a stream, or a test's in-memory buffer. */
export interface CliWriter {
  write(text: string): unknown;
  /** True on a terminal: progress lines are drawn and long listings are capped. */
  readonly isTTY?: boolean;
  /** The terminal's width in columns, when it has one. */
  readonly columns?: number;
}

/** Everything a command reads from or writes to its process, so it can run in-process under a test. */
export interface CliIo {
  readonly stdout: CliWriter;
  readonly stderr: CliWriter;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths (`--project`, `--to`, `-o`, `--dir`, a graph file) are resolved against. */
  readonly cwd: string;
  /** Standard input, for `--output-file -`; absent when the host has none (a test that gives no input). */
  readonly stdin?: AsyncIterable<string | Uint8Array>;
}
