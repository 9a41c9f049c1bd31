import * as z from 'zod';
import { ID_PATTERN } from '../project/index.js';
import { projectConfigFileSchema } from './project-config.js';

type JsonSchema = Record<string, unknown>;

/** One line per section, shown by editors on hover. */
const SECTION_DESCRIPTIONS = {
  ingest: 'How documents are ingested: the feature flag, fail mode, durability and limits.',
  agents: 'Agents by name (used by graph nodes in agent:), each a replay, command or openai agent.',
  runtime: 'Settings of the graph runtime.',
  workflow: 'Reserved for the workflow engine; takes no keys yet.',
  contracts: 'Reserved for artifact contracts; takes no keys yet.',
} as const;

// The loader reads ingest.enabled through parseIngestFlag: trimmed, any case; YAML may also give 1/0 as numbers.
const ENABLED_JSON_SCHEMA: JsonSchema = {
  description:
    'Turns the ingest on or off when neither --ingest/--no-ingest nor ARTIFACT_INGEST decides; off by default.',
  anyOf: [
    { type: 'boolean' },
    { type: 'integer', enum: [0, 1] },
    {
      type: 'string',
      pattern: '^\\s*(?:[Tt][Rr][Uu][Ee]|[Oo][Nn]|1|[Ff][Aa][Ll][Ss][Ee]|[Oo][Ff][Ff]|0)\\s*$',
    },
  ],
  examples: [true, false, 'on', 'off'],
};

// The key exists in the zod schema only to give a precise error; to an editor it is simply never allowed.
const API_KEY_JSON_SCHEMA: JsonSchema = {
  not: {},
  description:
    'Never write an API key in this file: name the environment variable that holds it in api_key_env.',
};

/**
 * The JSON Schema of `artifact-ingest.config.yaml` as written (docs/config.schema.json), for editors: a
 * `# yaml-language-server: $schema=...` line at the top of the file makes them complete and check it.
 */
export function projectConfigJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(projectConfigFileSchema, {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonSchema;
  const sections = child(schema, 'properties');
  for (const [name, description] of Object.entries(SECTION_DESCRIPTIONS)) {
    child(sections, name)['description'] = description;
  }
  child(mappingOf(child(sections, 'ingest')), 'properties')['enabled'] = ENABLED_JSON_SCHEMA;
  const agents = mappingOf(child(sections, 'agents'));
  agents['propertyNames'] = { type: 'string', pattern: ID_PATTERN.source };
  const kinds = child(agents, 'additionalProperties')['oneOf'];
  if (!Array.isArray(kinds)) throw new Error('config JSON Schema: agents are no longer a oneOf of kinds');
  for (const kind of kinds as JsonSchema[]) child(kind, 'properties')['api_key'] = API_KEY_JSON_SCHEMA;
  return {
    ...schema,
    title: 'artifact-ingest.config.yaml',
    description: 'Settings of an artifact-ingest project (docs/configuration.md).',
  };
}

/** The object schema at `key`; throws when the generated schema no longer has the expected shape. */
function child(schema: JsonSchema, key: string): JsonSchema {
  const value = schema[key];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`config JSON Schema: expected an object at "${key}"`);
  }
  return value as JsonSchema;
}

/** The mapping branch of a section that may also be left empty (`anyOf: [mapping, null]`). */
function mappingOf(section: JsonSchema): JsonSchema {
  const branches = section['anyOf'];
  const mapping = Array.isArray(branches)
    ? (branches as JsonSchema[]).find((branch) => branch['type'] === 'object')
    : undefined;
  if (mapping === undefined) throw new Error('config JSON Schema: a section has no mapping branch');
  return mapping;
}
