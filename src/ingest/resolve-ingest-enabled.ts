import { ConfigError, parseIngestFlag } from '../config/index.js';
import type { ProjectConfig } from '../config/index.js';

/** The environment variable that turns the runtime's post-write ingest on or off. */
export const INGEST_ENV_VAR = 'ARTIFACT_INGEST';

/** Where the ingest on/off decision came from, highest precedence first. */
export type IngestEnabledSource = 'cli' | 'env' | 'config' | 'default';

/** What decides whether the post-write ingest hook runs. */
export interface IngestEnabledInput {
  /** `--ingest` (true) or `--no-ingest` (false); undefined when neither was given. */
  readonly cli?: boolean | undefined;
  /** The environment to read `ARTIFACT_INGEST` from, usually `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** The loaded project config; its `ingest.enabled` counts only when the file sets it. */
  readonly config?: ProjectConfig | undefined;
}

/** Whether the ingest hook runs, and which setting decided it. */
export interface IngestEnabled {
  readonly enabled: boolean;
  readonly source: IngestEnabledSource;
}

/**
 * Decides whether the post-write ingest runs: CLI flag, then `ARTIFACT_INGEST`, then `ingest.enabled` in the
 * config file, then off; throws `ConfigError` for an `ARTIFACT_INGEST` value it cannot read.
 */
export function resolveIngestEnabled(input: IngestEnabledInput): IngestEnabled {
  // The variable is checked even when a CLI flag wins, so a typo in it never lies in wait.
  const fromEnv = readEnvFlag(input.env);
  if (input.cli !== undefined) return { enabled: input.cli, source: 'cli' };
  if (fromEnv !== undefined) return { enabled: fromEnv, source: 'env' };
  const fromConfig = input.config?.ingest.enabled;
  if (fromConfig !== undefined) return { enabled: fromConfig, source: 'config' };
  return { enabled: false, source: 'default' };
}

function readEnvFlag(env: IngestEnabledInput['env']): boolean | undefined {
  const raw = env?.[INGEST_ENV_VAR];
  // An empty value is how shells unset a variable for one command (ARTIFACT_INGEST= cmd).
  if (raw === undefined || raw.trim() === '') return undefined;
  const parsed = parseIngestFlag(raw);
  if (parsed !== undefined) return parsed;
  throw new ConfigError('environment', [
    {
      path: INGEST_ENV_VAR,
      message:
        `unknown value ${JSON.stringify(raw)}; set ${INGEST_ENV_VAR} to 1, true or on to enable the ingest, ` +
        `to 0, false or off to disable it, or unset it`,
    },
  ]);
}
