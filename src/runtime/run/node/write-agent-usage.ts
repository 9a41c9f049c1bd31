import type { EventLog } from '../../../events/index.js';
import type { Agent, AgentUsage } from '../../agents/index.js';

/** Which agent call of a run reported the usage. */
export interface AgentCallOf {
  readonly nodeId: string;
  /** The node's attempt, as its state and trace number it. */
  readonly attempt: number;
  readonly agent: Agent;
}

/**
 * Appends the `agent.usage` event of one agent call: the answer's model and token counts, only those the agent
 * reported, so `export otlp` can put them on the call's span. A call that reported nothing writes nothing.
 */
export function writeAgentUsage(events: EventLog, call: AgentCallOf, usage: AgentUsage): void {
  const { responseModel, inputTokens, outputTokens } = usage;
  if (responseModel === undefined && inputTokens === undefined && outputTokens === undefined) return;
  events.write('INFO', 'agent.usage', {
    node_id: call.nodeId,
    attempt: call.attempt,
    agent: call.agent.name,
    // GenAI's provider is the API spoken: only the openai agent speaks one (as the live span says).
    ...(call.agent.kind === 'openai' ? { provider: 'openai' } : {}),
    ...(call.agent.model === undefined ? {} : { request_model: call.agent.model }),
    ...(responseModel === undefined ? {} : { model: responseModel }),
    ...(inputTokens === undefined ? {} : { input_tokens: inputTokens }),
    ...(outputTokens === undefined ? {} : { output_tokens: outputTokens }),
  });
}
