// The MCP server an outside coding assistant drives workflows through (spec workflow-mcp.md, docs/mcp.md).
export { createWorkflowMcpServer, WORKFLOW_MCP_SERVER_NAME } from './create-workflow-mcp-server.js';
export type { WorkflowMcpServerOptions } from './create-workflow-mcp-server.js';
export { isExpectedError, toolError, toolResult } from './tool-result.js';
export { callSubmitArtifact } from './submit-artifact-tool.js';
export type { SubmitArtifactToolCode, SubmitArtifactToolRequest } from './submit-artifact-tool.js';
export {
  MAX_MESSAGE_BYTES,
  MAX_MESSAGE_DEPTH,
  MAX_PENDING_OUTPUT_BYTES,
  MAX_REPLY_BYTES,
  MAX_REPLY_ITEMS,
  MAX_REQUESTS_IN_FLIGHT,
  MAX_SENT_BYTES,
} from './mcp-limits.js';
export { BoundedStdioTransport } from './bounded-stdio-transport.js';
export type { BoundedStdioTransportOptions } from './bounded-stdio-transport.js';
