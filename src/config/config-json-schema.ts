import * as z from 'zod';
import { projectConfigFileSchema } from './project-config.js';

/**
 * The JSON Schema of `artifact-ingest.config.yaml` as written (docs/config.schema.json), for editors: a
 * `# yaml-language-server: $schema=...` line at the top of the file makes them complete and check it.
 */
export function projectConfigJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(projectConfigFileSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'artifact-ingest.config.yaml',
    description: 'Settings of an artifact-ingest project (docs/configuration.md).',
  };
}
