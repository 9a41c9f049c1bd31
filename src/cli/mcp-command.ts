import path from 'node:path';
import { ConfigError, loadProjectConfig, resolveRemoteSettings } from '../config/index.js';
import type { ProjectConfig, RemoteSettings } from '../config/index.js';
import { CONTRACT_DOC_URI_PREFIX } from '../contracts/index.js';
import { BoundedStdioTransport, createWorkflowMcpServer } from '../mcp/index.js';
import { describeError, PROJECT_CONFIG_FILE } from '../project/index.js';
import type { CliIo } from './cli-io.js';
import { packageVersion } from './package-version.js';
import { parseCommandArgs } from './parse-command-args.js';
import { lookUpProject } from './resolve-project.js';
import { UsageError } from './usage-error.js';

/** Help text of `artifact-ingest mcp`. */
export const MCP_HELP = `Usage: artifact-ingest mcp [--project DIR]

Serve the workflow engine over MCP on stdio, for a coding assistant (Claude Code, Cursor, VS Code, any
MCP client) to drive workflows step by step. Tools: workflow_list, workflow_start, workflow_status,
workflow_advance, register_artefacts, submit_artifact, workflow_abort. Resources: the format doc of each
contract type, ${CONTRACT_DOC_URI_PREFIX}<type>. The server stops when stdin closes; logs go to stderr,
stdout carries only the protocol. A missing project folder or a broken config does not stop it: it is said
on stderr and answers every tool call. Setup for each assistant: docs/mcp.md.

Options:
  --project DIR   project root: .agent/runs/, workflows/, docs/ (default: current directory)
  -h, --help      show this help

Example (Claude Code):
  claude mcp add artifact-ingest -- npx artifact-ingest mcp --project /path/to/project
`;

/**
 * Runs `artifact-ingest mcp`: loads the project config once and serves until stdin closes; returns the exit code.
 * A missing project folder or a broken config does not stop it (clients such as the MCP Inspector hide stderr and
 * show only "Connection closed"): it is said once on stderr, every tool call answers with it, and the exit code
 * is 2 as for any other command.
 */
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
  const { projectDir, config, remote, problem } = await openProject(values.project, io.cwd, io.env);
  const log = (line: string): void => {
    io.stderr.write(`artifact-ingest mcp: ${line}\n`);
  };
  if (problem !== undefined)
    log(`${problem}\nevery tool call answers with this until the server is restarted`);
  const server = createWorkflowMcpServer(
    {
      projectDir,
      env: io.env,
      log,
      ...(problem === undefined ? { config } : { startupProblem: problem }),
      // A remote configured: each step that ends and each submission is pushed there, fail-open.
      ...(remote === undefined ? {} : { engine: { remote } }),
    },
    packageVersion(),
  );
  // What the SDK notices on its side (a response to no request, a failed send) goes to the log, not nowhere.
  server.server.onerror = (error) => {
    log(`protocol: ${error.message}`);
  };
  const transport = new BoundedStdioTransport({ log });
  await server.connect(transport);
  if (problem === undefined) log(`serving ${projectDir} on stdio`);
  // Closed when stdin ends and every request read has been answered (or stdout failed): nothing else ends it.
  await transport.closed;
  await server.close();
  return problem === undefined ? 0 : 2;
}

/** The project the server works in: its real folder and config, or the problem that keeps it from serving it. */
type OpenedProject =
  | {
      readonly projectDir: string;
      readonly config: ProjectConfig;
      readonly remote: RemoteSettings | undefined;
      readonly problem?: undefined;
    }
  | {
      readonly projectDir: string;
      readonly config?: undefined;
      readonly remote?: undefined;
      readonly problem: string;
    };

// Resolves `--project` (as resolveProject) and loads its config, saying what is wrong rather than throwing.
async function openProject(
  project: string | undefined,
  cwd: string,
  env: CliIo['env'],
): Promise<OpenedProject> {
  const found = await lookUpProject(project, cwd);
  if (!found.ok) {
    const what = {
      missing: 'does not exist',
      not_a_folder: 'is not a folder',
      unreadable: `cannot be read (${describeError(found.cause)})`,
    }[found.problem];
    const problem = `the project folder ${found.projectDir} ${what}; start the server with --project pointing at your project`;
    return { projectDir: found.projectDir, problem };
  }
  const realDir = found.projectDir;
  try {
    const config = await loadProjectConfig(realDir);
    return { projectDir: realDir, config, remote: resolveRemoteSettings(config, env) };
  } catch (error) {
    const file = path.join(realDir, PROJECT_CONFIG_FILE);
    const what =
      error instanceof ConfigError ? error.message : `cannot read ${file}: ${describeError(error)}`;
    return {
      projectDir: realDir,
      problem: `${what}\nfix ${PROJECT_CONFIG_FILE}, then restart the MCP server (reconnect it in your client)`,
    };
  }
}
