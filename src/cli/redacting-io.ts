import { escapeTerminalText, redactLiteralSecrets, redactSecrets } from '../project/index.js';
import type { CliIo, CliWriter } from './cli-io.js';
import {
  headerValuesOf,
  passwordOfUrl,
  SECRET_ENV_NAMES,
  SECRET_HEADER_ENV_NAMES,
  SECRET_URL_ENV_NAMES,
} from './secret-env.js';

/**
 * The same io, with every text written to stdout and stderr passed through `redactSecrets` first, after the
 * values of the configured keys ({@link SECRET_ENV_NAMES}) are removed by value, whatever their shape: the one
 * place that keeps secrets out of what any command prints (docs/security.md, "Secrets"). Control and bidi
 * characters are then written as `\uXXXX` escapes ({@link escapeTerminalText}), so nothing an agent wrote
 * can move the cursor, clear the screen or reorder a line.
 */
export function redactingIo(io: CliIo): CliIo {
  const secrets = [
    ...SECRET_ENV_NAMES.flatMap((name) => {
      const value = io.env[name];
      return value === undefined || value === '' ? [] : [value];
    }),
    ...SECRET_URL_ENV_NAMES.flatMap((name) => passwordOfUrl(io.env[name]) ?? []),
    ...SECRET_HEADER_ENV_NAMES.flatMap((name) => headerValuesOf(io.env[name])),
  ];
  const redact = (text: string): string =>
    escapeTerminalText(redactSecrets(redactLiteralSecrets(text, secrets)));
  return { ...io, stdout: redactingWriter(io.stdout, redact), stderr: redactingWriter(io.stderr, redact) };
}

function redactingWriter(writer: CliWriter, redact: (text: string) => string): CliWriter {
  return {
    write: (text: string) => writer.write(redact(text)),
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
