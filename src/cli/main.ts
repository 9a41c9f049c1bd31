#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { ConfigError } from '../ingest/index.js';
import { RunError } from '../runtime/index.js';
import { demoCommand, DEMO_HELP } from './demo-command.js';
import { ingestCommand, INGEST_HELP } from './ingest-command.js';
import { runCommand, RUN_HELP } from './run-command.js';
import { runsCommand, RUNS_HELP } from './runs-command.js';
import { showCommand, SHOW_HELP } from './show-command.js';
import { UsageError } from './usage-error.js';

const MAIN_HELP = `Usage: artifact-ingest <command> [options]

Turn the file blocks in AI agents' markdown documents into real files, safely.

Commands:
  run GRAPH                run a graph of agent nodes (built-in: single, self_critique, team)
  runs                     list the runs of a project
  show RUN_ID              show one run: nodes, documents, manifests
  ingest [PATH|GLOB ...]   extract \`\`\`<lang> file=<path> blocks into workspace/
  demo                     run the team graph on the embedded demo replies, ingest on
  help [COMMAND]           show help for a command

Options:
  -h, --help      show this help
  -v, --version   print the version

Run 'artifact-ingest <command> --help' for a command's options.
Documentation: docs/ in the package (README.md links every page).
`;

const COMMANDS: Record<string, { run: (args: readonly string[]) => Promise<number>; help: string }> = {
  run: { run: runCommand, help: RUN_HELP },
  runs: { run: runsCommand, help: RUNS_HELP },
  show: { run: showCommand, help: SHOW_HELP },
  ingest: { run: ingestCommand, help: INGEST_HELP },
  demo: { run: demoCommand, help: DEMO_HELP },
};

async function main(argv: readonly string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === '-h' || command === '--help') {
    process.stdout.write(MAIN_HELP);
    return command === undefined ? 2 : 0;
  }
  if (command === '-v' || command === '--version') {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    process.stdout.write(`${pkg.version}\n`);
    return 0;
  }
  if (command === 'help') {
    const topic = rest[0];
    process.stdout.write(
      topic !== undefined && topic in COMMANDS ? (COMMANDS[topic]?.help ?? MAIN_HELP) : MAIN_HELP,
    );
    return 0;
  }
  const entry = COMMANDS[command];
  if (entry === undefined) {
    throw new UsageError(
      `unknown command '${command}'; commands are: ${Object.keys(COMMANDS).join(', ')}`,
      '',
    );
  }
  return entry.run(rest);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      const hint =
        error.command === '' ? 'artifact-ingest --help' : `artifact-ingest ${error.command} --help`;
      process.stderr.write(`artifact-ingest: ${error.message}\nRun '${hint}' for usage.\n`);
      process.exitCode = 2;
    } else if (error instanceof RunError) {
      process.stderr.write(`artifact-ingest: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`artifact-ingest: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof RangeError) {
      process.stderr.write(`artifact-ingest: ${error.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(
        `artifact-ingest: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    }
  },
);
