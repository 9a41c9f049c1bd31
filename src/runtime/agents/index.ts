export {
  AgentError,
  type Agent,
  type AgentConfig,
  type AgentKind,
  type AgentRequest,
  type AgentUsage,
} from './agent.js';
export { createAgent } from './create-agent.js';
export { createCommandAgent, type CommandAgentConfig, type CommandAgentOptions } from './command-agent.js';
export { createOpenAiAgent, type OpenAiAgentConfig, type OpenAiAgentOptions } from './openai-agent.js';
export { createReplayAgent, type ReplayAgentConfig } from './replay-agent.js';
export { runProgram, type ProgramOutcome, type ProgramRun } from './run-program.js';
export { parseRetryAfter, retryDelayMs, type RetryDelayOptions } from './retry-delay.js';
