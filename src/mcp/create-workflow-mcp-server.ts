import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ProjectConfig } from '../config/index.js';
import { CONTRACT_DOC_URI_PREFIX } from '../contracts/index.js';
import {
  abortWorkflow,
  advanceWorkflow,
  describeStepIngest,
  listWorkflows,
  registerWorkflowArtefacts,
  startWorkflow,
  workflowStatus,
} from '../workflow/index.js';
import type { WorkflowEngineDeps } from '../workflow/index.js';
import { boundToolError } from './bound-reply.js';
import { registerContractResources } from './register-contract-resources.js';
import { callSubmitArtifact } from './submit-artifact-tool.js';
import { isExpectedError, redactToolResult, toolError, toolResult } from './tool-result.js';
import {
  registerArtefactsInput,
  registerArtefactsOutput,
  submitArtifactInput,
  submitArtifactOutput,
  workflowAbortInput,
  workflowAdvanceInput,
  workflowAdvanceOutput,
  workflowListInput,
  workflowListOutput,
  workflowStartInput,
  workflowStatusInput,
  workflowStatusOutput,
} from './workflow-tool-schemas.js';

/** Where the workflow MCP server works and what it reads the ingest flag from. */
export interface WorkflowMcpServerOptions {
  /** The project root: `.agent/runs/`, `workflows/`, `docs/`. */
  readonly projectDir: string;
  /** The environment `ARTIFACT_INGEST` is read from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The project config, loaded once by the host. */
  readonly config?: ProjectConfig;
  /** Where diagnostics go (default: stderr; stdout is the protocol's). */
  readonly log?: (line: string) => void;
  /** Extra engine dependencies (tests: `now`, `durability`). */
  readonly engine?: Omit<WorkflowEngineDeps, 'env' | 'config'>;
  /**
   * Why the project cannot be served (a missing project folder, a broken config), with its fix: the server still
   * completes the handshake and lists its tools, and answers every tool call with this as an `isError` result,
   * so a client that hides the server's stderr still shows it.
   */
  readonly startupProblem?: string;
}

/** The server's name and version as it introduces itself to clients. */
export const WORKFLOW_MCP_SERVER_NAME = 'artifact-ingest';

/**
 * An `McpServer` with the six workflow tools and `submit_artifact` (spec workflow-mcp.md, "MCP server") over `projectDir`,
 * and the format doc of each contract type as a resource; connect it to a transport (`StdioServerTransport`, or
 * `InMemoryTransport` in tests).
 */
export function createWorkflowMcpServer(options: WorkflowMcpServerOptions, version = '0.0.0'): McpServer {
  const { projectDir, startupProblem } = options;
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const deps: WorkflowEngineDeps = {
    cwd: projectDir,
    ...options.engine,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.config === undefined ? {} : { config: options.config }),
  };
  const server = new McpServer({ name: WORKFLOW_MCP_SERVER_NAME, version });

  // Every tool runs through here: a thrown error becomes an isError result, never a protocol error or a crash;
  // an error's text is bounded like a result (it may echo a huge argument).
  const handleResult =
    <A extends object>(tool: string, call: (args: WithoutUndefined<A>) => Promise<CallToolResult>) =>
    async (args: A): Promise<CallToolResult> => {
      try {
        // The one redaction at the edge, whatever built the result (docs/security.md, "Secrets"), then an
        // error's text bounded to one reply (a success is bounded by `toolResult`).
        const result = redactToolResult(
          startupProblem === undefined
            ? await call(withoutUndefined(args))
            : { content: [{ type: 'text', text: startupProblem }], isError: true },
        );
        return result.isError === true ? boundToolError(result) : result;
      } catch (error) {
        if (!isExpectedError(error)) {
          log(`${tool}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
        }
        return boundToolError(toolError(error));
      }
    };
  const handle = <A extends object>(tool: string, call: (args: WithoutUndefined<A>) => Promise<object>) =>
    handleResult<A>(tool, async (args) => toolResult(await call(args)));

  server.registerTool(
    'workflow_list',
    {
      description:
        "List the workflows this project can run: the project's workflows/*.yaml and the built-ins, with their inputs; each workflows/ file that does not load is in broken with its error.",
      inputSchema: workflowListInput,
      outputSchema: workflowListOutput,
    },
    handle('workflow_list', () => listWorkflows(projectDir)),
  );
  server.registerTool(
    'workflow_start',
    {
      description:
        'Start a workflow by name with its inputs; returns the first step: follow its instructions, then call next_action.tool.',
      inputSchema: workflowStartInput,
      outputSchema: workflowStatusOutput,
    },
    handle('workflow_start', (args) => startWorkflow(projectDir, args, deps)),
  );
  server.registerTool(
    'workflow_status',
    {
      description:
        'The current step of a workflow run and its instructions, registered artefacts and declared-versus-observed; changes nothing.',
      inputSchema: workflowStatusInput,
      outputSchema: workflowStatusOutput,
    },
    handle('workflow_status', (args) => workflowStatus(projectDir, args, deps)),
  );
  server.registerTool(
    'workflow_advance',
    {
      description:
        "Finish the current step (or loop task, or iteration) with its output and get the next one; on the last step, the workflow's completion summary. With an output, ingest says what became of it: its document and, with the ingest on, each file= block's status (written, skipped or rejected), workspace path and reason.",
      inputSchema: workflowAdvanceInput,
      outputSchema: workflowAdvanceOutput,
    },
    handleResult('workflow_advance', async (args) => {
      const result = await advanceWorkflow(projectDir, args, deps);
      const reply = toolResult(result);
      // The same JSON first (spec workflow-mcp.md), then what became of the output in short lines.
      return result.ingest === undefined
        ? reply
        : {
            ...reply,
            content: [...reply.content, { type: 'text', text: describeStepIngest(result.ingest).join('\n') }],
          };
    }),
  );
  server.registerTool(
    'register_artefacts',
    {
      description:
        'Register files you created or changed in this step (paths absolute or relative to the project root); each is checked, hashed and recorded.',
      inputSchema: registerArtefactsInput,
      outputSchema: registerArtefactsOutput,
    },
    handle('register_artefacts', (args) =>
      registerWorkflowArtefacts(projectDir, { ...args, paths: args.paths }, deps),
    ),
  );
  server.registerTool(
    'workflow_abort',
    {
      description:
        'Stop a running workflow; the run folder is kept as its audit trail. Returns the final status.',
      inputSchema: workflowAbortInput,
      outputSchema: workflowStatusOutput,
    },
    handle('workflow_abort', (args) => abortWorkflow(projectDir, args, deps)),
  );
  server.registerTool(
    'submit_artifact',
    {
      description: `Submit the artifact a step's contract asks for (its instructions say which type and its fields), once you have produced it and before workflow_advance: validated against the type's schema (full format: the resource ${CONTRACT_DOC_URI_PREFIX}<type>), written to .agent/artifacts/<run_id>/<type>.json and recorded. A refusal lists every field path with the value expected, and the fields the type requires: fix those and submit again.`,
      inputSchema: submitArtifactInput,
      outputSchema: submitArtifactOutput,
    },
    handleResult('submit_artifact', (args) => callSubmitArtifact(projectDir, args, deps)),
  );
  registerContractResources(server);
  return server;
}

/** An object type whose optional fields, when present, are never `undefined` (as the engine's requests are). */
type WithoutUndefined<T> = { [K in keyof T]: Exclude<T[K], undefined> };

// zod gives an absent optional field as `undefined`; the engine's requests (exactOptionalPropertyTypes) leave it out.
function withoutUndefined<T extends object>(value: T): WithoutUndefined<T> {
  return Object.fromEntries(
    Object.entries(value).filter(([, field]) => field !== undefined),
  ) as WithoutUndefined<T>;
}
