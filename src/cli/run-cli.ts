import type { CliIo } from './cli-io.js';
import { packageVersion } from './package-version.js';
import { classifyError } from './cli-error.js';
import { COMMANDS, MAIN_HELP } from './commands.js';
import type { Command } from './commands.js';
import { exitCodeFor } from './exit-codes.js';
import { withShellCommands } from './shell-command-words.js';
import { UsageError } from './usage-error.js';

/**
 * Runs the CLI on `argv` (without node and the script) against `io` and returns the exit code; the one place
 * that catches a command's errors, prints them and maps them to exit codes.
 */
export async function runCli(argv: readonly string[], rawIo: CliIo): Promise<number> {
  // The main help and the version are fixed text: printed before the redaction (and the id schemas and zod it
  // loads) is loaded, so `artifact-ingest --version` costs little more than node itself.
  const [first] = argv;
  if (argv.length <= 1 && (first === undefined || first === '-h' || first === '--help')) {
    rawIo.stdout.write(MAIN_HELP);
    return first === undefined ? 2 : 0;
  }
  if (argv.length === 1 && (first === '-v' || first === '--version')) {
    rawIo.stdout.write(`${packageVersion()}\n`);
    return 0;
  }
  const { redactingIo } = await import('./redacting-io.js');
  const io = redactingIo(rawIo);
  // `--json` asks for one JSON document on stdout in every case, an error included.
  const json = argv.includes('--json');
  let command = '';
  try {
    const { project, rest } = takeLeadingProject(argv);
    const [name, ...args] = rest;
    if (name === undefined || name === '-h' || name === '--help') {
      io.stdout.write(MAIN_HELP);
      return name === undefined ? 2 : 0;
    }
    if (name === '-v' || name === '--version') {
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    if (name === 'help') {
      const [topic, ...extra] = args;
      if (extra.length > 0) throw new UsageError(`help takes one COMMAND, got ${args.join(' ')}`, '');
      const main = topic === undefined || topic === '-h' || topic === '--help';
      io.stdout.write(main ? MAIN_HELP : (await loadCommand(topic)).help);
      return 0;
    }
    const loaded = await loadCommand(name);
    command = name;
    return await loaded.run(project === undefined ? args : usingProject(name, project, args), io);
  } catch (error) {
    return reportError(error, command, json, io);
  }
}

async function loadCommand(name: string): Promise<Command> {
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (load !== undefined) return load();
  const names = Object.keys(COMMANDS);
  const { closestMatch } = await import('../config/index.js');
  const suggestion = closestMatch(name, names);
  throw new UsageError(
    `unknown command '${name}'; ${suggestion === undefined ? `commands are: ${names.join(', ')}` : `did you mean ${suggestion}?`}`,
    '',
  );
}

/** `--project DIR` (or `--project=DIR`) before the command, as `git -C` takes it. */
function takeLeadingProject(argv: readonly string[]): { project?: string; rest: readonly string[] } {
  const [first, second] = argv;
  if (first === '--project') {
    if (second === undefined || second === '')
      throw new UsageError('--project needs a directory: --project DIR', '');
    return { project: second, rest: argv.slice(2) };
  }
  if (first?.startsWith('--project=') === true) {
    const project = first.slice('--project='.length);
    if (project === '') throw new UsageError('--project needs a directory: --project=DIR', '');
    return { project, rest: argv.slice(1) };
  }
  return { rest: argv };
}

function usingProject(command: string, project: string, args: readonly string[]): string[] {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (options.some((arg) => arg === '--project' || arg.startsWith('--project=')))
    throw new UsageError('--project is given twice (before and after the command); pass it once', command);
  return ['--project', project, ...args];
}

async function reportError(error: unknown, command: string, json: boolean, io: CliIo): Promise<number> {
  const known = await classifyError(error, command);
  if (known === undefined) {
    // Only an error nobody expected keeps its stack: it is a bug to report.
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    if (json) writeJsonError(io, 'internal_error', error instanceof Error ? error.message : String(error));
    io.stderr.write(`artifact-ingest: internal error: ${detail}\n`);
    return 1;
  }
  // The workflow engine words its messages for an agent calling MCP tools; a shell user is told the commands.
  const message =
    command === 'workflow' || command === 'submit' ? withShellCommands(known.message) : known.message;
  if (json) writeJsonError(io, known.code, message);
  io.stderr.write(`artifact-ingest: ${message}\n`);
  if (known.usageOf !== undefined) {
    const hint = known.usageOf === '' ? 'artifact-ingest --help' : `artifact-ingest ${known.usageOf} --help`;
    io.stderr.write(`Run '${hint}' for usage.\n`);
  }
  return exitCodeFor(known.code);
}

function writeJsonError(io: CliIo, code: string, message: string): void {
  io.stdout.write(`${JSON.stringify({ error: { code, message } }, null, 2)}\n`);
}
