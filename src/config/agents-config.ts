import path from 'node:path';
import * as z from 'zod';
import { isId } from '../project/index.js';
import type { AgentConfig } from './agent-config.js';
import { closestMatch } from './closest-match.js';
import { describeValue } from './describe-value.js';
import type { AllowedKeys } from './parse-yaml-with-schema.js';

/** The `runtime:` section of the config file, defaults filled in. */
export interface RuntimeSettings {
  /** Most nodes running at once. */
  readonly concurrency: number;
  /** Most bytes of a run's node documents, all together; a node whose document would pass it fails. */
  readonly maxRunDocumentBytes: number;
}

/** Defaults of the agents' and runtime's settings (docs/runtime.md, "Configuration: agents and runtime"). */
export const RUNTIME_CONFIG_DEFAULTS = Object.freeze({
  concurrency: 2,
  // 16 documents of the default max_document_bytes (16 MiB): room for real graphs, far from exhausting memory.
  maxRunDocumentBytes: 256 * 1024 * 1024,
  commandTimeoutMs: 300_000,
  openaiBaseURL: 'https://api.openai.com/v1',
  openaiApiKeyEnv: 'OPENAI_API_KEY',
  openaiTimeoutMs: 120_000,
  openaiMaxRetries: 2,
});

const MAX_CONCURRENCY = 64;
// 1 TiB: past any document total a run could hold in memory, so a larger value is a typo.
const MAX_RUN_DOCUMENT_BYTES = 1024 ** 4;
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;
const MAX_RETRIES = 10;
const KINDS = ['replay', 'command', 'openai'] as const;

const API_KEY_MESSAGE =
  'never write an API key in this file; put it in an environment variable and name that variable in api_key_env (such as api_key_env: OPENAI_API_KEY)';

// Present in every kind so that a key written here gets this message, never "unknown key"; its value is never shown.
const apiKeySchema = z.undefined({ error: API_KEY_MESSAGE }).optional();

function wholeNumber(key: string, min: number, max: number, example: number) {
  const hint = `write a whole number from ${String(min)} to ${String(max)}, such as ${key}: ${String(example)}`;
  return z
    .int({ error: (issue) => `expected a whole number, got ${describeValue(issue.input)}; ${hint}` })
    .min(min, { error: (issue) => `${describeValue(issue.input)} is too small; ${hint}` })
    .max(max, { error: (issue) => `${describeValue(issue.input)} is too large; ${hint}` });
}

function text(example: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `missing; add ${example}`
          : `expected text, got ${describeValue(issue.input)}; write it as ${example}`,
    })
    .min(1, { error: `is empty; write it as ${example}` });
}

const baseURLSchema = text('base_url: https://api.openai.com/v1').superRefine((value, context) => {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    context.addIssue({
      code: 'custom',
      message: `${describeValue(value)} is not a URL; write it as base_url: https://api.openai.com/v1`,
    });
    return;
  }
  // Credentials in the URL would be a secret in the file; the value is not echoed for the same reason.
  if (url.username !== '' || url.password !== '') {
    context.addIssue({ code: 'custom', message: `the URL holds credentials; ${API_KEY_MESSAGE}` });
  } else if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    context.addIssue({ code: 'custom', message: `expected an http:// or https:// URL, got ${url.protocol}` });
  }
});

const replayShape = {
  kind: z.literal('replay'),
  dir: text('dir: fixtures/replies (a folder of <node id>.md replies)'),
  api_key: apiKeySchema,
};

const commandShape = {
  kind: z.literal('command'),
  command: z
    .array(text('command: [llm, -m, mistral]'), {
      error: (issue) =>
        issue.input === undefined
          ? 'missing; add command: [program, arguments...], such as command: [llm, -m, mistral]'
          : `expected a list (the program, then its arguments; no shell runs it), got ${describeValue(issue.input)}; write it as command: [llm, -m, mistral]`,
    })
    .min(1, { error: 'is empty; name at least the program, such as command: [llm]' }),
  timeout_ms: wholeNumber(
    'timeout_ms',
    1,
    MAX_TIMEOUT_MS,
    RUNTIME_CONFIG_DEFAULTS.commandTimeoutMs,
  ).optional(),
  cwd: text('cwd: tools (a folder, relative to the project)').optional(),
  api_key: apiKeySchema,
};

const openaiShape = {
  kind: z.literal('openai'),
  base_url: baseURLSchema.optional(),
  model: text('model: gpt-4o-mini'),
  api_key_env: z
    .string({ error: 'expected the name of an environment variable, such as api_key_env: OPENAI_API_KEY' })
    // The value might be a pasted key, so the message never repeats it.
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
      error:
        'expected the NAME of the environment variable that holds the key (letters, digits and "_"), such as api_key_env: OPENAI_API_KEY, never the key itself',
    })
    .optional(),
  timeout_ms: wholeNumber(
    'timeout_ms',
    1,
    MAX_TIMEOUT_MS,
    RUNTIME_CONFIG_DEFAULTS.openaiTimeoutMs,
  ).optional(),
  max_retries: wholeNumber(
    'max_retries',
    0,
    MAX_RETRIES,
    RUNTIME_CONFIG_DEFAULTS.openaiMaxRetries,
  ).optional(),
  temperature: z
    .number({ error: (issue) => `expected a number from 0 to 2, got ${describeValue(issue.input)}` })
    .min(0, { error: 'must be from 0 to 2' })
    .max(2, { error: 'must be from 0 to 2' })
    .optional(),
  api_key: apiKeySchema,
};

const SHAPES = { replay: replayShape, command: commandShape, openai: openaiShape } as const;

const agentSchema = z.discriminatedUnion(
  'kind',
  [z.strictObject(replayShape), z.strictObject(commandShape), z.strictObject(openaiShape)],
  {
    error: (issue) => {
      const input: unknown = issue.input;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return `expected an agent (a mapping with kind: ${KINDS.join(', ')}), got ${describeValue(input)}`;
      }
      const kind: unknown = (input as Record<string, unknown>).kind;
      if (kind === undefined) return `missing; add kind: ${KINDS[0]} (or ${KINDS.slice(1).join(', ')})`;
      const suggestion = typeof kind === 'string' ? closestMatch(kind, KINDS) : undefined;
      const advice =
        suggestion === undefined ? `write one of ${KINDS.join(', ')}` : `did you mean "${suggestion}"?`;
      return `unknown agent kind ${describeValue(kind)}; ${advice}`;
    },
  },
);

// Checked here rather than as the record's key schema, so the issue points at the name and the agent is still checked.
function checkAgentNames(agents: unknown, context: z.RefinementCtx): void {
  if (typeof agents !== 'object' || agents === null || Array.isArray(agents)) return;
  for (const name of Object.keys(agents)) {
    if (isId(name)) continue;
    context.addIssue({
      code: 'custom',
      path: [],
      params: { key: name },
      message: `${describeValue(name)} is not a valid agent name; use 1 to 128 letters, digits, ".", "_" or "-", starting with a letter or digit`,
    });
  }
}

const runtimeShape = {
  concurrency: wholeNumber('concurrency', 1, MAX_CONCURRENCY, RUNTIME_CONFIG_DEFAULTS.concurrency).optional(),
  max_run_document_bytes: wholeNumber(
    'max_run_document_bytes',
    1,
    MAX_RUN_DOCUMENT_BYTES,
    RUNTIME_CONFIG_DEFAULTS.maxRunDocumentBytes,
  ).optional(),
};

/** The `agents:` section: agent names to agents, each checked against its kind. */
export const agentsSectionSchema = z
  .record(z.string(), agentSchema, {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `expected a mapping of agent names to agents, got ${describeValue(issue.input)}; indent the agents under "agents:"`
        : undefined,
  })
  .superRefine(checkAgentNames, { when: () => true })
  .nullish();

/** The `runtime:` section. */
export const runtimeSectionSchema = z
  .strictObject(runtimeShape, {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `expected a mapping, got ${describeValue(issue.input)}; indent its keys under "runtime:"`
        : undefined,
  })
  .nullish();

/** The keys allowed under `agents.<name>` (by the agent's kind) and under `runtime`, by dotted path. */
export const AGENTS_CONFIG_KEYS: Readonly<Record<string, AllowedKeys>> = Object.freeze({
  'agents.*': (agent: Readonly<Record<string, unknown>>) => {
    const shape = KINDS.find((kind) => kind === agent.kind);
    return Object.keys(SHAPES[shape ?? 'replay']).filter((key) => key !== 'api_key');
  },
  runtime: Object.keys(runtimeShape),
});

/** The agents of a config file, camelCased, relative `dir` and `cwd` resolved against `projectDir`. */
export function toAgentConfigs(
  agents: z.infer<typeof agentsSectionSchema>,
  projectDir: string,
): ReadonlyMap<string, AgentConfig> {
  return new Map(
    Object.entries(agents ?? {}).map(([name, agent]) => [name, toAgentConfig(agent, projectDir)]),
  );
}

/** The `runtime:` section with defaults filled in. */
export function toRuntimeSettings(runtime: z.infer<typeof runtimeSectionSchema>): RuntimeSettings {
  return {
    concurrency: runtime?.concurrency ?? RUNTIME_CONFIG_DEFAULTS.concurrency,
    maxRunDocumentBytes: runtime?.max_run_document_bytes ?? RUNTIME_CONFIG_DEFAULTS.maxRunDocumentBytes,
  };
}

function toAgentConfig(agent: z.infer<typeof agentSchema>, projectDir: string): AgentConfig {
  switch (agent.kind) {
    case 'replay':
      return { kind: 'replay', dir: path.resolve(projectDir, agent.dir) };
    case 'command':
      return {
        kind: 'command',
        command: agent.command,
        timeoutMs: agent.timeout_ms ?? RUNTIME_CONFIG_DEFAULTS.commandTimeoutMs,
        ...(agent.cwd === undefined ? {} : { cwd: path.resolve(projectDir, agent.cwd) }),
      };
    case 'openai':
      return {
        kind: 'openai',
        baseURL: agent.base_url ?? RUNTIME_CONFIG_DEFAULTS.openaiBaseURL,
        model: agent.model,
        apiKeyEnv: agent.api_key_env ?? RUNTIME_CONFIG_DEFAULTS.openaiApiKeyEnv,
        timeoutMs: agent.timeout_ms ?? RUNTIME_CONFIG_DEFAULTS.openaiTimeoutMs,
        maxRetries: agent.max_retries ?? RUNTIME_CONFIG_DEFAULTS.openaiMaxRetries,
        ...(agent.temperature === undefined ? {} : { temperature: agent.temperature }),
      };
  }
}
