import { CodedError } from '../../project/index.js';
import type { AgentKind } from '../../config/index.js';

/** What an agent is asked: one rendered prompt for one node of one run. */
export interface AgentRequest {
  readonly runId: string;
  readonly nodeId: string;
  readonly prompt: string;
  /** Which ask of this node's execution this is, 1-based: 2 and up are fix re-asks (absent: 1). */
  readonly attempt?: number;
  /** Aborted when the run is stopped; agents must stop promptly and reject. */
  readonly signal: AbortSignal;
  /** Told what the call used, by an agent that knows (the openai agent: the answer's model and token usage). */
  readonly onUsage?: (usage: AgentUsage) => void;
}

/** What one agent call used, as far as the agent knows it (GenAI `gen_ai.response.model`, `gen_ai.usage.*`). */
export interface AgentUsage {
  readonly responseModel?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

/** Something that turns a prompt into a reply (the node's document). */
export interface Agent {
  /** The configured name (`planner`, `builder` ...). */
  readonly name: string;
  readonly kind: AgentKind;
  /** The model it asks, when it names one (the openai agent's `model`). */
  readonly model?: string;
  /** Resolves with the reply text, or rejects with an {@link AgentError} that says what went wrong. */
  complete(request: AgentRequest): Promise<string>;
}

export type { AgentConfig, AgentKind } from '../../config/index.js';

/** Why an agent failed, as {@link AgentError}'s `code`. */
export type AgentErrorCode =
  | 'replay_missing'
  | 'timeout'
  | 'exit_status'
  | 'empty_reply'
  | 'spawn_failed'
  | 'http_status'
  | 'network'
  | 'bad_response'
  | 'missing_api_key'
  | 'aborted';

/** Why an agent failed; `code` is stable, `message` says what to fix and never contains a secret. */
export class AgentError extends CodedError<AgentErrorCode> {
  override readonly name = 'AgentError';
}
