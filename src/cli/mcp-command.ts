import { loadProjectConfig } from '../config/index.js';
import { BoundedStdioTransport, createWorkflowMcpServer } from '../mcp/index.js';
import type { CliIo } from './cli-io.js';
import { packageVersion } from './package-version.js';
import { parseCommandArgs } from './parse-command-args.js';
import { resolveProject } from './resolve-project.js';
import { UsageError } from './usage-error.js';

/** Help text of `artifact-ingest mcp`. */
export const MCP_HELP = `Usage: artifact-ingest mcp [--project DIR]

Serve the workflow engine over MCP on stdio, for a coding assistant (Claude Code, Cursor, VS Code, any
MCP client) to drive workflows step by step. Tools: workflow_list, workflow_start, workflow_status,
workflow_advance, register_artefacts, submit_artifact, workflow_abort. The server stops when stdin closes;
logs go to stderr, stdout carries only the protocol. Setup for each assistant: docs/mcp.md.

Options:
  --project DIR   project root: .agent/runs/, workflows/, docs/ (default: current directory)
  -h, --help      show this help

Example (Claude Code):
  claude mcp add artifact-ingest -- npx artifact-ingest mcp --project /path/to/project
`;

/** Runs `artifact-ingest mcp`: loads the project config once and serves until stdin closes; returns the exit code. */
export async function mcpCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('mcp', args, {
    project: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`mcp takes no arguments, got ${positionals.join(' ')}`, 'mcp');
  const projectDir = await resolveProject(values.project, 'mcp', io.cwd);
  // A broken config file fails here, at startup, not in the middle of an agent's workflow.
  const config = await loadProjectConfig(projectDir);
  const log = (line: string): void => {
    io.stderr.write(`artifact-ingest mcp: ${line}\n`);
  };
  const server = createWorkflowMcpServer({ projectDir, env: io.env, config, log }, packageVersion());
  // What the SDK notices on its side (a response to no request, a failed send) goes to the log, not nowhere.
  server.server.onerror = (error) => {
    log(`protocol: ${error.message}`);
  };
  const transport = new BoundedStdioTransport({ log });
  await server.connect(transport);
  io.stderr.write(`artifact-ingest mcp: serving ${projectDir} on stdio\n`);
  // Closed when stdin ends and every request read has been answered (or stdout failed): nothing else ends it.
  await transport.closed;
  await server.close();
  return 0;
}
