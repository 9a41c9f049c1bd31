import { closestMatch } from '../../config/index.js';
import type { CliIo } from '../cli-io.js';
import { UsageError } from '../usage-error.js';
import { WORKFLOW_HELP, WORKFLOW_SUBCOMMAND_HELP } from './workflow-help.js';
import type { WorkflowSubcommand } from './workflow-help.js';

export { WORKFLOW_HELP } from './workflow-help.js';

/**
 * Runs `artifact-ingest workflow <subcommand>`: list, start, status, advance, register, abort (docs/cli.md,
 * "workflow"); returns the exit code.
 */
export async function workflowCommand(args: readonly string[], io: CliIo): Promise<number> {
  // `--project DIR` may come first (runCli puts a leading one there), so the subcommand is the first word.
  const at = subcommandIndex(args);
  const name = args[at];
  if (name === undefined || name === '-h' || name === '--help') {
    if (name === undefined && !args.some((arg) => arg === '-h' || arg === '--help')) {
      throw new UsageError(`name a subcommand: ${subcommandNames().join(', ')}`, 'workflow');
    }
    io.stdout.write(WORKFLOW_HELP);
    return 0;
  }
  const rest = [...args.slice(0, at), ...args.slice(at + 1)];
  if (name === 'help') {
    const [topic] = rest.filter((arg) => !arg.startsWith('-'));
    io.stdout.write(topic === undefined ? WORKFLOW_HELP : WORKFLOW_SUBCOMMAND_HELP[subcommandOf(topic)]);
    return 0;
  }
  const { WORKFLOW_SUBCOMMANDS } = await import('./workflow-subcommands.js');
  return WORKFLOW_SUBCOMMANDS[subcommandOf(name)](rest, io);
}

function subcommandNames(): WorkflowSubcommand[] {
  return Object.keys(WORKFLOW_SUBCOMMAND_HELP) as WorkflowSubcommand[];
}

function subcommandOf(name: string): WorkflowSubcommand {
  const names = subcommandNames();
  if ((names as string[]).includes(name)) return name as WorkflowSubcommand;
  const suggestion = closestMatch(name, names);
  throw new UsageError(
    `unknown workflow subcommand '${name}'; ${suggestion === undefined ? `subcommands are: ${names.join(', ')}` : `did you mean ${suggestion}?`}`,
    'workflow',
  );
}

/** The first argument that is not `--project DIR`, `--project=DIR` or `--json` (the options every subcommand takes). */
function subcommandIndex(args: readonly string[]): number {
  let at = 0;
  while (at < args.length) {
    const arg = args[at];
    if (arg === '--project') at += 2;
    else if (arg === '--json' || arg?.startsWith('--project=') === true) at += 1;
    else return at;
  }
  return at;
}
