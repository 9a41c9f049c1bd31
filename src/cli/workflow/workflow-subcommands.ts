import { hasRunFolder } from '../../artifacts/index.js';
import path from 'node:path';
import { loadProjectConfig, resolveRemoteSettings } from '../../config/index.js';
import { isRunId, parseRunId } from '../../project/index.js';
import {
  abortWorkflow,
  advanceWorkflow,
  describeStepIngest,
  listWorkflows,
  registerWorkflowArtefacts,
  startWorkflow,
  workflowStatus,
} from '../../workflow/index.js';
import type { WorkflowEngineDeps, WorkflowStatusResponse } from '../../workflow/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { readWorkflowOutput } from './read-workflow-output.js';
import {
  renderWorkflowCompletion,
  renderWorkflowList,
  renderWorkflowStatus,
} from './render-workflow-status.js';
import { resolveProject } from '../resolve-project.js';
import { UsageError } from '../usage-error.js';
import { WORKFLOW_SUBCOMMAND_HELP } from './workflow-help.js';
import type { WorkflowSubcommand } from './workflow-help.js';
import { quickFs } from '../../workspace/index.js';

type Subcommand = (args: readonly string[], io: CliIo) => Promise<number>;

const COMMON = {
  project: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Every `workflow` subcommand by name; each parses its own arguments and returns the exit code. */
export const WORKFLOW_SUBCOMMANDS: Readonly<Record<WorkflowSubcommand, Subcommand>> = {
  list: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow list', args, COMMON);
    if (values.help === true) return help(io, 'list');
    noMoreThan(positionals, 0, 'list');
    const projectDir = await resolveProject(values.project, 'workflow list', io.cwd);
    const listing = await listWorkflows(projectDir);
    io.stdout.write(values.json === true ? json(listing) : renderWorkflowList(listing));
    // Listed, so exit 0; the note on stderr tells a script that some file of workflows/ cannot be started.
    for (const entry of listing.broken) {
      io.stderr.write(
        `artifact-ingest: warning: ${entry.file} is broken: it cannot be started until it is fixed (its error is in the listing)\n`,
      );
    }
    return 0;
  },

  start: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow start', args, {
      ...COMMON,
      input: { type: 'string', multiple: true },
      'run-id': { type: 'string' },
    });
    if (values.help === true) return help(io, 'start');
    noMoreThan(positionals, 1, 'start', 'WORKFLOW');
    const [workflow] = positionals;
    if (workflow === undefined) {
      throw new UsageError(
        "name the WORKFLOW to start (see 'artifact-ingest workflow list')",
        'workflow start',
      );
    }
    const runId = values['run-id'] === undefined ? undefined : parseRunId(values['run-id'], '--run-id');
    const { projectDir, deps } = await engineContext(values.project, 'start', io);
    const status = await startWorkflow(
      projectDir,
      {
        workflow,
        inputs: parseInputs(values.input ?? []),
        ...(runId === undefined ? {} : { run_id: runId }),
      },
      deps,
    );
    return printStatus(io, status, values.json === true);
  },

  status: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow status', args, COMMON);
    if (values.help === true) return help(io, 'status');
    const runId = optionalRunId(positionals, 'status');
    const { projectDir, deps } = await engineContext(values.project, 'status', io);
    const status = await workflowStatus(projectDir, runId === undefined ? {} : { run_id: runId }, deps);
    return printStatus(io, status, values.json === true);
  },

  advance: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow advance', args, {
      ...COMMON,
      output: { type: 'string' },
      'output-file': { type: 'string' },
    });
    if (values.help === true) return help(io, 'advance');
    const runId = optionalRunId(positionals, 'advance');
    const { projectDir, config, deps } = await engineContext(values.project, 'advance', io);
    const output = await readWorkflowOutput(
      { output: values.output, outputFile: values['output-file'] },
      io,
      config.ingest.limits.maxDocumentBytes,
    );
    const result = await advanceWorkflow(
      projectDir,
      { ...(runId === undefined ? {} : { run_id: runId }), ...(output === undefined ? {} : { output }) },
      deps,
    );
    if (values.json === true) io.stdout.write(json(result));
    else {
      // What became of the output first, then where the workflow now stands.
      if (result.ingest !== undefined) io.stdout.write(`${describeStepIngest(result.ingest).join('\n')}\n\n`);
      io.stdout.write('summary' in result ? renderWorkflowCompletion(result) : renderWorkflowStatus(result));
    }
    // As `run`: an advance that ended the workflow exits 0 only when its terminal state is done.
    return result.terminal === undefined || result.terminal.state === 'done' ? 0 : 1;
  },

  register: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow register', args, COMMON);
    if (values.help === true) return help(io, 'register');
    const { projectDir, deps } = await engineContext(values.project, 'register', io);
    const [first, ...rest] = positionals;
    const runId = first !== undefined && (await isRunOf(projectDir, first)) ? first : undefined;
    const given = runId === undefined ? positionals : rest;
    if (given.length === 0) {
      throw new UsageError('name the PATH of at least one file to register', 'workflow register');
    }
    // Relative to where the person typed them, as every path of the CLI; the engine judges the absolute path.
    const base = await quickFs.realpath(io.cwd).catch(() => io.cwd);
    const paths = given.map((file) => path.resolve(base, file));
    const result = await registerWorkflowArtefacts(
      projectDir,
      { ...(runId === undefined ? {} : { run_id: runId }), paths },
      deps,
    );
    if (values.json === true) io.stdout.write(json(result));
    else {
      const lines = [
        `run ${result.run_id}: ${String(result.registered.length)} registered, ${String(result.duplicates.length)} already registered, ${String(result.invalid.length)} invalid`,
        ...result.registered.map((file) => `  registered  ${file}`),
        ...result.duplicates.map((file) => `  duplicate   ${file}`),
        ...result.invalid.map((problem) => `  invalid     ${problem.path}: ${problem.message}`),
      ];
      io.stdout.write(`${lines.join('\n')}\n`);
    }
    // A path that could not be registered is work left undone: a script must see it (docs/cli.md, "workflow").
    return result.invalid.length > 0 ? 1 : 0;
  },

  abort: async (args, io) => {
    const { values, positionals } = parseCommandArgs('workflow abort', args, {
      ...COMMON,
      reason: { type: 'string' },
    });
    if (values.help === true) return help(io, 'abort');
    const runId = optionalRunId(positionals, 'abort');
    const { projectDir, deps } = await engineContext(values.project, 'abort', io);
    const status = await abortWorkflow(
      projectDir,
      {
        ...(runId === undefined ? {} : { run_id: runId }),
        ...(values.reason === undefined ? {} : { reason: values.reason }),
      },
      deps,
    );
    return printStatus(io, status, values.json === true);
  },
};

/** The project, its config loaded once, and the engine's deps built from them and the process. */
async function engineContext(
  project: string | undefined,
  subcommand: WorkflowSubcommand,
  io: CliIo,
): Promise<{
  projectDir: string;
  config: Awaited<ReturnType<typeof loadProjectConfig>>;
  deps: WorkflowEngineDeps;
}> {
  const projectDir = await resolveProject(project, `workflow ${subcommand}`, io.cwd);
  const config = await loadProjectConfig(projectDir);
  const remote = resolveRemoteSettings(config, io.env);
  return {
    projectDir,
    config,
    deps: { config, env: io.env, cwd: io.cwd, ...(remote === undefined ? {} : { remote }) },
  };
}

function printStatus(io: CliIo, status: WorkflowStatusResponse, asJson: boolean): number {
  io.stdout.write(asJson ? json(status) : renderWorkflowStatus(status));
  return 0;
}

function help(io: CliIo, subcommand: WorkflowSubcommand): number {
  io.stdout.write(WORKFLOW_SUBCOMMAND_HELP[subcommand]);
  return 0;
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The optional RUN_ID of status, advance and abort, parsed at the edge (a bad id is exit 2). */
function optionalRunId(positionals: readonly string[], subcommand: WorkflowSubcommand): string | undefined {
  noMoreThan(positionals, 1, subcommand, 'RUN_ID');
  const [text] = positionals;
  return text === undefined ? undefined : parseRunId(text, 'RUN_ID');
}

function noMoreThan(
  positionals: readonly string[],
  most: number,
  subcommand: WorkflowSubcommand,
  what?: string,
): void {
  if (positionals.length <= most) return;
  const takes = what === undefined ? 'takes no arguments' : `takes one ${what}`;
  throw new UsageError(
    `workflow ${subcommand} ${takes}, got ${positionals.join(' ')}`,
    `workflow ${subcommand}`,
  );
}

/** Whether `text` names a run of the project (register's optional RUN_ID before its paths). */
async function isRunOf(projectDir: string, text: string): Promise<boolean> {
  if (!isRunId(text)) return false;
  return await hasRunFolder(projectDir, text).catch(() => false);
}

function parseInputs(pairs: readonly string[]): Record<string, string> {
  const inputs: Record<string, string> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) {
      throw new UsageError(
        `--input '${pair}' must be KEY=VALUE, e.g. --input feature="CSV export"`,
        'workflow start',
      );
    }
    const key = pair.slice(0, equals);
    if (Object.hasOwn(inputs, key)) {
      throw new UsageError(`--input ${key} is given twice; pass each input once`, 'workflow start');
    }
    inputs[key] = pair.slice(equals + 1);
  }
  return inputs;
}
