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

let finished = false;
void runCli(process.argv.slice(2), io).then((code) => {
  finished = true;
  process.exitCode = code === 0 && outputFailed ? 1 : code;
});

// A command waiting on a stream event that never comes leaves the event loop empty with its work unfinished, and
// Node would exit 0 having done nothing: that is a bug, and it must not look like success.
process.once('beforeExit', () => {
  if (finished) return;
  process.exitCode = 1;
  process.stderr.write(
    'artifact-ingest: internal error: the command stopped before it finished (it waited on work that never came), so its output may be missing or incomplete; run it again, and report this as a bug if it repeats\n',
  );
});
