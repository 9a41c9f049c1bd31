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
  remote:
    'The remote that keeps the lineage of many machines: a PostgreSQL catalog and an object store. Credentials come only from the environment (PGPASSWORD, AWS_ACCESS_KEY_ID, ...), never from this file.',
  git: "Export each run to git as it ends (export: true), into the project's work tree or repo: (docs/git.md).",
} as const;

// What the loader's rules check beyond the types, as far as a JSON Schema can say it; the loader stays the judge.
const REMOTE_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  project: {
    description:
      'The namespace inside a shared catalog (such as acme/web): 1 to 128 letters, digits, ".", "_", "/" or "-", not starting with "/" or ".".',
    pattern: '^(?![/.])[A-Za-z0-9._/-]{1,128}$',
  },
  catalog: {
    description:
      'The PostgreSQL catalog: a postgres:// or postgresql:// URL; its parameters (sslmode, ...) pass to the driver. Never a password: set PGPASSWORD or PGPASSFILE.',
    pattern: '^[Pp][Oo][Ss][Tt][Gg][Rr][Ee][Ss](?:[Qq][Ll])?://[^:/?#@]*@?[^/?#@]*(?:[/?#].*)?$',
  },
  objects: {
    description:
      'Where contents go: s3://bucket or s3://bucket/prefix (an S3-compatible object store), or catalog (inside PostgreSQL).',
    pattern: '^(?:catalog|[Ss]3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](?:/.*)?)$',
  },
  s3: {
    description: 'Only for S3-compatible servers other than AWS: endpoint, region, path style, checksums.',
  },
};

const REMOTE_S3_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  endpoint: {
    description:
      'The http(s) URL of an S3-compatible server (MinIO, Ceph, R2, ...); leave it out for AWS. Never with credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#@]+(?:[/?#].*)?$',
  },
  region: { description: 'The S3 region, such as us-east-1.', pattern: '^[A-Za-z0-9._-]{1,64}$' },
  force_path_style: {
    description:
      'true: address buckets as http://host/bucket/key, as most S3-compatible servers want. Default false.',
  },
  checksums: {
    description:
      "The AWS SDK's request checksum calculation and response validation: when_required for servers that reject its default CRC32 checksums. Default when_required with an endpoint, else when_supported.",
  },
};

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
  const remote = mappingOf(child(sections, 'remote'));
  describeProperties(remote, REMOTE_PROPERTIES);
  describeProperties(mappingOf(child(child(remote, 'properties'), 's3')), REMOTE_S3_PROPERTIES);
  return {
    ...schema,
    title: 'artifact-ingest.config.yaml',
    description: 'Settings of an artifact-ingest project (docs/configuration.md).',
  };
}

/**
 * Adds descriptions and patterns to a mapping's properties, and closes it to other keys: the loader keeps
 * unknown keys in its value only to judge them (remote-config.ts), and refuses every one.
 */
function describeProperties(mapping: JsonSchema, additions: Readonly<Record<string, JsonSchema>>): void {
  const properties = child(mapping, 'properties');
  for (const [name, addition] of Object.entries(additions)) {
    properties[name] = { ...child(properties, name), ...addition };
  }
  mapping['additionalProperties'] = false;
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
