import { parseArgs } from 'node:util';
import type { ParseArgsConfig } from 'node:util';
import { closestMatch } from '../config/index.js';
import { UsageError } from './usage-error.js';
import { REMOTE_READ_COMMANDS } from './remote-read-commands.js';
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
    return parseArgs({
      args: withNegativeValues(args, options),
      allowPositionals: true,
      options,
      strict: true,
    });
  } catch (error) {
    const message = describeError(error);
    const unknown = /^Unknown option '(-{1,2}[^']*)'/.exec(message)?.[1];
    if (unknown !== undefined) throw new UsageError(unknownOption(unknown, command, options), command);
    throw new UsageError(message.replace(/\. To specify a positional argument.*$/s, '.'), command);
  }
}

/**
 * The arguments with a negative number given to a string option (`--quiet-ms -1`) joined to it (`--quiet-ms=-1`):
 * node would call the value ambiguous, an option perhaps; the command's own check then says what it takes.
 */
function withNegativeValues(args: readonly string[], options: Options): string[] {
  const joined: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] ?? '';
    const value = args[index + 1];
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option?.type === 'string' && value !== undefined && /^-\d/.test(value)) {
      joined.push(`${arg}=${value}`);
      index++;
    } else joined.push(arg);
  }
  return joined;
}

function unknownOption(option: string, command: string, options: Options): string {
  const name = option.replace(/^-+/, '').replace(/=.*$/, '');
  // Not a typo of one of the command's options: the command reads (or writes) only the local project.
  if (name === 'remote') {
    return `${command} does not take --remote; the commands that read a remote are ${REMOTE_READ_COMMANDS.join(', ')} (and push and pull copy runs to and from it)`;
  }
  const suggestion = closestMatch(name, Object.keys(options));
  return suggestion === undefined
    ? `unknown option '${option}'`
    : `unknown option '${option}'; did you mean --${suggestion}?`;
}
