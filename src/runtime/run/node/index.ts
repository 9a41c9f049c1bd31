export { nodeTraceOf } from './node-trace.js';
export { performNode } from './perform-node.js';
export type { FixNeeded } from './perform-node.js';
export { prepareNode } from './run-node.js';
export type { NodeOutcome, NodeRunContext } from './run-node.js';
export { writeAgentUsage } from './write-agent-usage.js';
