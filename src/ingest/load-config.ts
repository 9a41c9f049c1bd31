import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from './config-error.js';
import { parseYamlWithSchema } from './parse-yaml-with-schema.js';
import {
  DEFAULT_PROJECT_CONFIG,
  PROJECT_CONFIG_FILE,
  PROJECT_CONFIG_KEYS,
  projectConfigSchema,
  type ProjectConfig,
} from './project-config.js';

export type { ProjectConfig } from './project-config.js';

/**
 * Reads `artifact-ingest.config.yaml` from `projectDir` with defaults filled in (a missing file means all
 * defaults); throws `ConfigError` listing every problem in it, each with its line and column.
 */
export async function loadProjectConfig(projectDir: string): Promise<ProjectConfig> {
  const file = path.join(projectDir, PROJECT_CONFIG_FILE);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return DEFAULT_PROJECT_CONFIG;
    if (code === 'EISDIR') {
      throw new ConfigError(file, [
        { path: '', message: 'is a directory; make it a YAML file or remove it' },
      ]);
    }
    throw error;
  }
  return parseProjectConfig(text, file);
}

/** Parses the text of a config file; `source` names the file in issue messages. */
export function parseProjectConfig(text: string, source: string = PROJECT_CONFIG_FILE): ProjectConfig {
  return parseYamlWithSchema(text, source, projectConfigSchema, PROJECT_CONFIG_KEYS);
}
