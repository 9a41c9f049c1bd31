#!/usr/bin/env node
import type { CliWriter } from './cli-io.js';
import { runCli } from './run-cli.js';

/**
 * Wraps a standard stream so that a reader going away (`artifact-ingest ingest big.md | head -1`) ends the
 * output quietly: later writes are dropped and the command finishes with its own exit code.
 */
let outputFailed = false;

function closableWriter(stream: NodeJS.WriteStream): CliWriter {
  let closed = false;
  // Without a listener, EPIPE would be an unhandled 'error' event and print a stack trace.
  stream.on('error', (error: NodeJS.ErrnoException) => {
    closed = true;
    if (error.code !== 'EPIPE' && stream !== process.stderr) {
      outputFailed = true;
      process.stderr.write(`artifact-ingest: cannot write output: ${error.message}\n`);
    }
  });
  return {
    write: (text: string) => !closed && stream.write(text),
    get isTTY() {
      return stream.isTTY;
    },
    get columns() {
      return stream.columns;
    },
  };
}

const io = {
  stdout: closableWriter(process.stdout),
  stderr: closableWriter(process.stderr),
  env: process.env,
  cwd: process.cwd(),
  stdin: process.stdin,
};

void runCli(process.argv.slice(2), io).then((code) => {
  process.exitCode = code === 0 && outputFailed ? 1 : code;
});
