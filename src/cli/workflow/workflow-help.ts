import { INGEST_ENV_VAR } from '../../ingest/index.js';

const COMMON_OPTIONS = `  --project DIR   project root (default: current directory)
  --json          print the engine's result as JSON (the MCP tool's shape)
  -h, --help      show this help`;

const RUN_ID_NOTE = `RUN_ID may be left out while exactly one workflow of the project is running.`;

/** Help text of `artifact-ingest workflow`. */
export const WORKFLOW_HELP = `Usage: artifact-ingest workflow <subcommand> [options]

Drive a workflow from the command line: the same engine, state and results as the MCP tools
(workflow_list, workflow_start, workflow_status, workflow_advance, register_artefacts, workflow_abort).

Subcommands:
  list                          the workflows of the project (workflows/*.yaml) and the built-ins
  start WORKFLOW                start a workflow (--input KEY=VALUE ..., --run-id ID)
  status [RUN_ID]               the current step: instructions, next action, artefacts
  advance [RUN_ID]              finish the current pass (--output TEXT | --output-file FILE | --output-file -)
  register [RUN_ID] PATH ...    register files the step wrote as its artefacts
  abort [RUN_ID]                stop a running workflow (--reason TEXT)

${RUN_ID_NOTE}
Every subcommand takes --project DIR, --json and --help.

Exit codes: 0 done; 1 the engine refused the work (registration required, a blocked step, invalid paths
to register, a state conflict: retry); 2 usage or configuration (bad flags or ids, an unknown run or
workflow, a missing input or output, no workflow started, a run that is no longer running).

Examples:
  artifact-ingest workflow start feature-dev --input feature="CSV export"
  artifact-ingest workflow status
  artifact-ingest workflow advance --output-file scope.md
  artifact-ingest workflow register docs/scope.md
`;

/** Help texts of the `workflow` subcommands, by name. */
export const WORKFLOW_SUBCOMMAND_HELP = {
  list: `Usage: artifact-ingest workflow list [--project DIR] [--json]

List the workflows that 'workflow start' can run: the project's workflows/<name>.yaml, then the
built-ins (chain_of_thought, feature-dev) that the project does not override. A file of workflows/
that does not load is listed after them with its error (and a warning on stderr); it still hides the
built-in of its name. --json prints { "workflows": [{ name, version, description, steps, inputs }],
"broken": [{ name, file, error }] }.

Options:
${COMMON_OPTIONS}

Exit codes: 0 listed, broken files included; 2 workflows/ itself leads outside the project.
`,
  start: `Usage: artifact-ingest workflow start WORKFLOW [--input KEY=VALUE ...] [--run-id ID] [options]

Start a workflow and print its first step. WORKFLOW is a name (workflows/<name>.yaml, then the
built-ins) or the path, relative to the current directory, of a YAML file under the project's
workflows/ that stays inside the project once symlinks are resolved; nothing else is read. Every
input the workflow declares is required.

Options:
  --input KEY=VALUE   an input, e.g. --input feature="CSV export" (repeatable; values are text)
  --run-id ID         id of the new run (default: <workflow>-<UTC time>-<4 hex>)
${COMMON_OPTIONS}

Exit codes: 0 started; 2 unknown or invalid workflow, a missing or unknown input, a bad or existing run id.
`,
  status: `Usage: artifact-ingest workflow status [RUN_ID] [options]

Print a workflow run's status: step, type, progress, the task or iteration, the instructions, the next
action, the registered artefacts and, when observed, the files changed but not registered. Changes nothing.
${RUN_ID_NOTE}

Options:
${COMMON_OPTIONS}

Exit codes: 0; 2 no workflow running (or several: name one), an unknown run.
`,
  advance: `Usage: artifact-ingest workflow advance [RUN_ID] [--output TEXT | --output-file FILE | --output-file -]

Finish the current pass with its output and print the next step, or the summary when the workflow
completes. The output is kept under the step's save_as and written as docs/<run_id>/<step>[-<pass>].md;
with ingest on (${INGEST_ENV_VAR}=1 or ingest.enabled: true in artifact-ingest.config.yaml) its
\`\`\`<lang> file=<path> blocks are extracted into workspace/. It first says what became of each block
(written to its workspace/ path, or skipped or rejected and why; at most 50, the manifest has all);
--json gives it as "ingest".
${RUN_ID_NOTE}

Options:
  --output TEXT         the step's output
  --output-file FILE    read the output from FILE (UTF-8); '-' reads standard input
${COMMON_OPTIONS}

Exit codes: 0 advanced or complete; 1 refused: registration required, the next step is blocked, the
document could not be written, a state conflict (retry); 2 the step needs an output, the run is not
running, no workflow running, an unknown run.
`,
  register: `Usage: artifact-ingest workflow register [RUN_ID] PATH ... [options]

Register files the current step wrote as the run's artefacts: each is checked by ingest's path rules
(inside the project, no symlink, not in .git or .agent, an existing regular file), hashed and recorded.
Paths are relative to the current directory (or absolute). The first argument is taken as RUN_ID when
the project has a run of that name. ${RUN_ID_NOTE}

Options:
${COMMON_OPTIONS}

Exit codes: 0 every path registered (or already registered); 1 some paths were invalid (the others are
registered; the output lists why); 2 no workflow running, an unknown run.
`,
  abort: `Usage: artifact-ingest workflow abort [RUN_ID] [--reason TEXT] [options]

Stop a running workflow. Its run folder stays as the audit trail; status becomes "aborted".
${RUN_ID_NOTE}

Options:
  --reason TEXT   why, kept in the state and the workflow.aborted event
${COMMON_OPTIONS}

Exit codes: 0 aborted; 2 the run is not running, no workflow running, an unknown run.
`,
} as const;

/** A `workflow` subcommand's name. */
export type WorkflowSubcommand = keyof typeof WORKFLOW_SUBCOMMAND_HELP;
