/** The CLI command that does what each MCP tool does (docs/cli.md, "artifact-ingest workflow"). */
const COMMAND_OF_TOOL: Readonly<Record<string, string>> = {
  workflow_list: 'artifact-ingest workflow list',
  workflow_start: 'artifact-ingest workflow start',
  workflow_status: 'artifact-ingest workflow status',
  workflow_advance: 'artifact-ingest workflow advance',
  register_artefacts: 'artifact-ingest workflow register',
  submit_artifact: 'artifact-ingest submit',
  workflow_abort: 'artifact-ingest workflow abort',
};

const TOOL = new RegExp(`\\b(${Object.keys(COMMAND_OF_TOOL).join('|')})\\b`, 'g');

// The engine's advice for missing inputs, written for an MCP client: `call workflow_start with inputs: { ... }`.
const START_WITH_INPUTS = /workflow (\S+) needs ([^;]*); call workflow_start with inputs: \{[^}]*\}/g;

/**
 * An engine message (written for an agent calling MCP tools) in a shell user's words: each tool named as the
 * command that does the same, quoted, and the inputs of a start as `--input KEY=...` flags.
 */
export function withShellCommands(message: string): string {
  return message
    .replace(START_WITH_INPUTS, (_whole, name: string, inputs: string) => {
      const flags = inputs
        .split(/,\s*/)
        .filter((input) => input !== '')
        .map((input) => `--input ${input}=...`)
        .join(' ');
      return `workflow ${name} needs ${inputs}; run 'artifact-ingest workflow start ${name} ${flags}'`;
    })
    .replace(TOOL, (tool) => `'${COMMAND_OF_TOOL[tool] ?? tool}'`);
}
