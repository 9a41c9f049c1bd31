import path from 'node:path';
import { parseYamlWithSchema, PROJECT_CONFIG_FILE } from '../ingest/index.js';
import { readConfigText } from './read-config-text.js';
import { RUNTIME_CONFIG_KEYS, runtimeConfigSchema, type RuntimeConfig } from './runtime-config-schema.js';

export type { RuntimeConfig } from './runtime-config-schema.js';

/** Largest config file read, in bytes. */
const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/**
 * Reads the `agents:` and `runtime:` sections of `artifact-ingest.config.yaml` in `projectDir` (no file: no
 * agents, defaults), throwing a `ConfigError` that lists every problem with its line and column.
 */
export async function loadRuntimeConfig(projectDir: string): Promise<RuntimeConfig> {
  const file = path.join(projectDir, PROJECT_CONFIG_FILE);
  const text = await readConfigText(file, MAX_CONFIG_FILE_BYTES);
  // No file configures nothing: an empty document gets every default.
  return parseRuntimeConfig(text ?? '', file, projectDir);
}

/** Parses the text of a config file's runtime sections; `source` names the file in messages, relative paths resolve against `projectDir`. */
export function parseRuntimeConfig(text: string, source: string, projectDir: string): RuntimeConfig {
  return parseYamlWithSchema(text, source, runtimeConfigSchema(projectDir), RUNTIME_CONFIG_KEYS);
}
