/** What an agent is asked: one rendered prompt for one node of one run. */
export interface AgentRequest {
  readonly runId: string;
  readonly nodeId: string;
  readonly prompt: string;
  /** Aborted when the run is stopped; agents must stop promptly and reject. */
  readonly signal: AbortSignal;
}

/** Something that turns a prompt into a reply (the node's document). */
export interface Agent {
  /** The configured name (`planner`, `builder` ...). */
  readonly name: string;
  readonly kind: AgentKind;
  /** Resolves with the reply text, or rejects with an {@link AgentError} that says what went wrong. */
  complete(request: AgentRequest): Promise<string>;
}

/** The agent implementations. */
export type AgentKind = 'replay' | 'command' | 'openai';

/** How one named agent is configured (the `agents:` mapping of artifact-ingest.config.yaml, camelCased). */
export type AgentConfig =
  | { readonly kind: 'replay'; readonly dir: string }
  | {
      readonly kind: 'command';
      /** argv: program then arguments; no shell. */
      readonly command: readonly string[];
      readonly timeoutMs: number;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'openai';
      readonly baseURL: string;
      readonly model: string;
      /** Name of the environment variable holding the API key (never the key itself). */
      readonly apiKeyEnv: string;
      readonly timeoutMs: number;
      readonly maxRetries: number;
      readonly temperature?: number;
    };

/** Why an agent failed; `code` is stable, `message` says what to fix and never contains a secret. */
export class AgentError extends Error {
  override readonly name = 'AgentError';
  constructor(
    readonly code:
      | 'replay_missing'
      | 'timeout'
      | 'exit_status'
      | 'empty_reply'
      | 'spawn_failed'
      | 'http_status'
      | 'network'
      | 'bad_response'
      | 'missing_api_key'
      | 'aborted',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
