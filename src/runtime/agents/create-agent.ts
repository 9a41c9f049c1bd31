import type { Agent, AgentConfig } from './agent.js';
import { createCommandAgent } from './command-agent.js';
import { createOpenAiAgent } from './openai-agent.js';
import { createReplayAgent } from './replay-agent.js';

/** Builds the agent that `config` describes; `env` is what `command` programs inherit and where `openai` keys are read. */
export function createAgent(
  name: string,
  config: AgentConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Agent {
  switch (config.kind) {
    case 'replay':
      return createReplayAgent(name, config);
    case 'command':
      return createCommandAgent(name, config, { env });
    case 'openai':
      return createOpenAiAgent(name, config, { env });
  }
}
