import path from 'node:path';
import * as z from 'zod';
import type { AgentConfig } from './agent-config.js';
import {
  AGENTS_CONFIG_KEYS,
  agentsSectionSchema,
  runtimeSectionSchema,
  RUNTIME_CONFIG_DEFAULTS,
  toAgentConfigs,
  toRuntimeSettings,
  type RuntimeSettings,
} from './agents-config.js';
import { DEFAULT_FENCE_PARSER, FENCE_PARSERS, type FenceParser } from '../project/index.js';
import { describeValue } from './describe-value.js';
import { DEFAULT_INGEST_LIMITS, defaultMaxParseMs, type IngestLimits } from './ingest-limits.js';
import { parseIngestFlag } from './parse-ingest-flag.js';
import type { AllowedKeys } from './parse-yaml-with-schema.js';
import { REMOTE_CONFIG_KEYS, remoteSectionSchema, toRemoteSettings } from './remote-config.js';
import type { RemoteSettings } from './remote-settings.js';

/** The `ingest:` section, defaults filled in. */
export interface IngestSettings {
  /** `ingest.enabled` as written, or undefined when the file does not set it (the flag then falls through). */
  readonly enabled: boolean | undefined;
  /** `closed` turns rejections and errors into a failed result, as `--strict` does. */
  readonly failMode: 'open' | 'closed';
  /** `none` skips fsync for speed; `fsync` makes each write durable before the manifest says so. */
  readonly durability: 'fsync' | 'none';
  /** The block parser that finds fences: the scanner by default, micromark as the reference path. */
  readonly parser: FenceParser;
  /** `max_parse_ms`'s default follows the parser ({@link defaultMaxParseMs}). */
  readonly limits: IngestLimits;
}

/** The `git:` section: export each run to git as it ends (docs/git.md). */
export interface GitSettings {
  /** True: a run that ends is exported with `export git`, fail-open (a failure is a WARNING event). */
  readonly export: boolean;
  /** The repository to export into, resolved against the project; undefined: the project's work tree. */
  readonly repo: string | undefined;
}

/**
 * The project's settings: the one config file, read once per command and passed down, defaults filled in
 * (docs/configuration.md).
 */
export interface ProjectConfig {
  readonly ingest: IngestSettings;
  /** Agents by name; relative `dir` and `cwd` already resolved against the project. */
  readonly agents: ReadonlyMap<string, AgentConfig>;
  readonly runtime: RuntimeSettings;
  /** Reserved for the workflow engine's settings; no keys yet. */
  readonly workflow: Readonly<Record<string, never>>;
  /** Reserved for artifact contracts' settings; no keys yet. */
  readonly contracts: Readonly<Record<string, never>>;
  /** The `remote:` section as the file writes it, or undefined; `resolveRemoteSettings` applies the environment. */
  readonly remote: RemoteSettings | undefined;
  readonly git: GitSettings;
}

/** The configuration of a project without a config file. */
export const DEFAULT_PROJECT_CONFIG: ProjectConfig = Object.freeze({
  ingest: Object.freeze({
    enabled: undefined,
    failMode: 'open',
    durability: 'fsync',
    parser: DEFAULT_FENCE_PARSER,
    limits: DEFAULT_INGEST_LIMITS,
  }),
  agents: new Map<string, AgentConfig>(),
  runtime: Object.freeze({
    concurrency: RUNTIME_CONFIG_DEFAULTS.concurrency,
    maxRunDocumentBytes: RUNTIME_CONFIG_DEFAULTS.maxRunDocumentBytes,
  }),
  workflow: Object.freeze({}),
  contracts: Object.freeze({}),
  remote: undefined,
  git: Object.freeze({ export: false, repo: undefined }),
});

const enabledSchema = z.unknown().transform((value, context): boolean => {
  if (typeof value === 'boolean') return value;
  // YAML 1.2 reads a bare 1 or 0 as a number and on/off as strings; all of them mean what they say.
  const parsed =
    typeof value === 'string' ? parseIngestFlag(value) : value === 1 ? true : value === 0 ? false : undefined;
  if (parsed !== undefined) return parsed;
  context.addIssue({
    code: 'custom',
    input: value,
    message: `expected true or false (or on/off, 1/0), got ${describeValue(value)}; write "enabled: true" or "enabled: false"`,
  });
  return z.NEVER;
});

function choiceSchema<const T extends readonly [string, ...string[]]>(key: string, choices: T) {
  const written = choices.map((choice) => `"${key}: ${choice}"`).join(' or ');
  return z.enum(choices, {
    error: (issue) =>
      `expected one of ${choices.join(', ')}, got ${describeValue(issue.input)}; write ${written}`,
  });
}

function limitSchema(key: string, unit: string, fallback: number) {
  const hint = `write a whole number of ${unit} of at least 1, such as "${key}: ${String(fallback)}" (the default)`;
  return z
    .int({ error: (issue) => `expected a whole number, got ${describeValue(issue.input)}; ${hint}` })
    .min(1, { error: (issue) => `${describeValue(issue.input)} is too small; ${hint}` });
}

const limitsShape = {
  max_document_bytes: limitSchema(
    'max_document_bytes',
    'bytes',
    DEFAULT_INGEST_LIMITS.maxDocumentBytes,
  ).optional(),
  max_block_bytes: limitSchema('max_block_bytes', 'bytes', DEFAULT_INGEST_LIMITS.maxBlockBytes).optional(),
  max_blocks: limitSchema('max_blocks', 'blocks', DEFAULT_INGEST_LIMITS.maxBlocks).optional(),
  max_total_bytes: limitSchema('max_total_bytes', 'bytes', DEFAULT_INGEST_LIMITS.maxTotalBytes).optional(),
  max_parse_ms: limitSchema('max_parse_ms', 'milliseconds', DEFAULT_INGEST_LIMITS.maxParseMs).optional(),
};

const ingestShape = {
  enabled: enabledSchema.optional(),
  fail_mode: choiceSchema('fail_mode', ['open', 'closed']).optional(),
  durability: choiceSchema('durability', ['fsync', 'none']).optional(),
  parser: choiceSchema('parser', FENCE_PARSERS).optional(),
  limits: mappingSchema('limits', limitsShape),
};

const gitShape = {
  export: z
    .boolean({
      error: (issue) =>
        `expected true or false, got ${describeValue(issue.input)}; write "export: true" to export each run to git as it ends`,
    })
    .optional(),
  repo: z
    .string({
      error: (issue) =>
        `expected a folder, got ${describeValue(issue.input)}; write "repo: ../runs.git" (a git repository, or a folder to create a bare one in)`,
    })
    .min(1, { error: 'expected a folder, got an empty string; write "repo: ../runs.git" or leave repo out' })
    .optional(),
};

const fileShape = {
  ingest: mappingSchema('ingest', ingestShape),
  agents: agentsSectionSchema,
  runtime: runtimeSectionSchema,
  // Sections the workflow engine and contracts will fill; they take no keys yet.
  workflow: mappingSchema('workflow', {}),
  contracts: mappingSchema('contracts', {}),
  remote: remoteSectionSchema,
  git: mappingSchema('git', gitShape),
};

/** A strict mapping that may also be left empty (`ingest:` with nothing under it reads as null). */
function mappingSchema<S extends z.core.$ZodLooseShape>(key: string, shape: S) {
  const keys = Object.keys(shape).join(', ');
  const expected =
    keys === ''
      ? `"${key}:" takes no keys yet (it is reserved); leave it empty or remove it`
      : `indent those keys under "${key}:"`;
  return z
    .strictObject(shape, {
      error: (issue) =>
        issue.code === 'invalid_type'
          ? `expected a mapping${keys === '' ? '' : ` of ${keys}`}, got ${describeValue(issue.input)}; ${expected}`
          : undefined,
    })
    .nullish();
}

/** The keys allowed in each mapping of the config file, by dotted path ('' is the top level). */
export const PROJECT_CONFIG_KEYS: Readonly<Record<string, AllowedKeys>> = Object.freeze({
  '': Object.keys(fileShape),
  ingest: Object.keys(ingestShape),
  'ingest.limits': Object.keys(limitsShape),
  ...AGENTS_CONFIG_KEYS,
  workflow: [],
  contracts: [],
  ...REMOTE_CONFIG_KEYS,
  git: Object.keys(gitShape),
});

/** Zod schema of the config file as written (snake_case keys, all optional): what its JSON Schema describes. */
export const projectConfigFileSchema = z.strictObject(fileShape, {
  error: (issue) =>
    issue.code === 'invalid_type'
      ? `expected a mapping of ${Object.keys(fileShape).join(', ')}, got ${describeValue(issue.input)}; see docs/configuration.md`
      : undefined,
});

/**
 * Zod schema of the config file's contents producing a `ProjectConfig`; agents' relative paths resolve
 * against `projectDir`.
 */
export function projectConfigSchema(projectDir: string) {
  return projectConfigFileSchema.transform((file): ProjectConfig => {
    const ingest = file.ingest ?? {};
    const limits = ingest.limits ?? {};
    const defaults = DEFAULT_PROJECT_CONFIG.ingest;
    const parser = ingest.parser ?? defaults.parser;
    return {
      ingest: {
        enabled: ingest.enabled,
        failMode: ingest.fail_mode ?? defaults.failMode,
        durability: ingest.durability ?? defaults.durability,
        parser,
        limits: {
          maxDocumentBytes: limits.max_document_bytes ?? defaults.limits.maxDocumentBytes,
          maxBlockBytes: limits.max_block_bytes ?? defaults.limits.maxBlockBytes,
          maxBlocks: limits.max_blocks ?? defaults.limits.maxBlocks,
          maxTotalBytes: limits.max_total_bytes ?? defaults.limits.maxTotalBytes,
          maxParseMs: limits.max_parse_ms ?? defaultMaxParseMs(parser),
        },
      },
      agents: toAgentConfigs(file.agents, projectDir),
      runtime: toRuntimeSettings(file.runtime),
      workflow: {},
      contracts: {},
      remote: toRemoteSettings(file.remote),
      git: {
        export: file.git?.export ?? false,
        repo: file.git?.repo === undefined ? undefined : path.resolve(projectDir, file.git.repo),
      },
    };
  });
}
