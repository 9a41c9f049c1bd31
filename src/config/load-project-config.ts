import path from 'node:path';
import { PROJECT_CONFIG_FILE } from '../project/index.js';
import { parseYamlWithSchema } from './parse-yaml-with-schema.js';
import { PROJECT_CONFIG_KEYS, projectConfigSchema, type ProjectConfig } from './project-config.js';
import { readConfigText } from './read-config-text.js';

/**
 * Reads `artifact-ingest.config.yaml` from `projectDir` with defaults filled in (a missing file means all
 * defaults); throws `ConfigError` listing every problem in it, each with its line and column. Commands call
 * it once and pass the result down.
 */
export async function loadProjectConfig(projectDir: string): Promise<ProjectConfig> {
  const file = path.join(projectDir, PROJECT_CONFIG_FILE);
  const text = await readConfigText(file);
  // No file configures nothing: an empty document gets every default.
  return parseProjectConfig(text ?? '', file, projectDir);
}

/**
 * Parses the text of a config file; `source` names the file in issue messages and agents' relative paths
 * resolve against `projectDir` (default: the current directory).
 */
export function parseProjectConfig(
  text: string,
  source: string = PROJECT_CONFIG_FILE,
  projectDir: string = process.cwd(),
): ProjectConfig {
  return parseYamlWithSchema(text, source, projectConfigSchema(projectDir), PROJECT_CONFIG_KEYS);
}
