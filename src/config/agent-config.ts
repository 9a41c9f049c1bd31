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
