import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { closestMatch } from '../config/index.js';
import { UsageError } from './usage-error.js';
import { describeError } from '../project/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses a command's arguments strictly, turning node's parse errors into a {@link UsageError} that names the
 * fix; an unknown option suggests the command's closest one (`--dryrun`: did you mean --dry-run?).
 */
export function parseCommandArgs<T extends Options>(
  command: string,
  args: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = describeError(error);
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
    if (unknown !== undefined) throw new UsageError(unknownOption(unknown, options), command);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '.'), command);
  }
}

function unknownOption(option: string, options: Options): string {
  const name = option.replace(/^-+/, '').replace(/=.*$/, '');
  const suggestion = closestMatch(name, Object.keys(options));
  return suggestion === undefined
    ? `unknown option '${option}'`
    : `unknown option '${option}'; did you mean --${suggestion}?`;
}
