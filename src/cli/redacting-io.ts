import { redactSecrets } from '../project/index.js';
import type { CliIo, CliWriter } from './cli-io.js';

/**
 * The same io, with every text written to stdout and stderr passed through `redactSecrets` first: the one place
 * that keeps secrets out of what any command prints (docs/security.md, "Secrets").
 */
export function redactingIo(io: CliIo): CliIo {
  return { ...io, stdout: redactingWriter(io.stdout), stderr: redactingWriter(io.stderr) };
}

function redactingWriter(writer: CliWriter): CliWriter {
  return {
    write: (text: string) => writer.write(redactSecrets(text)),
    // Read through, so a terminal resized mid-command is seen as it is now.
    get isTTY() {
      return writer.isTTY === true;
    },
    // 80, as progress-line.ts assumes, where the writer has no width of its own.
    get columns() {
      return writer.columns ?? 80;
    },
  };
}
