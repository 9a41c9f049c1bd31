import * as z from 'zod';
import { closestMatch, describeValue, textSchema, withRules, type AllowedKeys } from '../../config/index.js';
import { budgetsSchema, contractTypeSchema } from '../../contracts/index.js';
import { type IngestMode } from '../../ingest/index.js';
import { checkGraphRules } from './check-graph-rules.js';
import type { GraphDefinition, GraphNode, GraphNodeType } from './graph-definition.js';
import { findSecret, ID_PATTERN, ID_RULE, SECRET_IN_ID } from '../../project/index.js';
import { TEMPLATE_NAME_PATTERN } from './template.js';

/** Most nodes a graph may have. */
export const MAX_GRAPH_NODES = 1000;

/** A graph as its YAML describes it, before the loader adds where it came from. */
export type GraphBody = Omit<GraphDefinition, 'hash' | 'source'>;

const NODE_TYPES = ['agent_task', 'write_file', 'command'] as const satisfies readonly GraphNodeType[];

/** Default of a command node's `timeout_ms`: two minutes per command. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** The modes a graph may declare: the manifest's (ingestModeSchema), as a tuple z.enum can type. */
export const GRAPH_MODES = [
  'single',
  'self_critique',
  'team',
  'unknown',
] as const satisfies readonly IngestMode[];

function idSchema(what: string, example: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `missing; add ${example}`
          : `expected a ${what}, got ${describeValue(issue.input)}; write it as text, such as ${example}`,
    })
    .regex(ID_PATTERN, {
      error: (issue) => `${describeValue(issue.input)} is not a valid ${what}; ${ID_RULE}`,
    })
    .refine((id) => findSecret(id) === undefined, {
      error: (issue) => `${describeValue(issue.input)} is not a valid ${what}; ${SECRET_IN_ID}`,
    });
}

function listSchema<T extends z.ZodType>(item: T, example: string) {
  return z.array(item, {
    error: (issue) => `expected a list, got ${describeValue(issue.input)}; write it as ${example}`,
  });
}

function choiceSchema<const T extends readonly [string, ...string[]]>(what: string, key: string, choices: T) {
  return z.enum(choices, {
    error: (issue) => {
      if (issue.input === undefined)
        return `missing; add ${key}: ${choices[0]} (or ${choices.slice(1).join(', ')})`;
      const suggestion = typeof issue.input === 'string' ? closestMatch(issue.input, choices) : undefined;
      const advice =
        suggestion === undefined ? `write one of ${choices.join(', ')}` : `did you mean "${suggestion}"?`;
      return `unknown ${what} ${describeValue(issue.input)}; ${advice}`;
    },
  });
}

const nodeShape = {
  id: idSchema('node id', 'id: plan').brand<'NodeId'>(),
  type: choiceSchema('node type', 'type', NODE_TYPES),
  agent: idSchema('agent name', 'agent: planner').optional(),
  prompt: textSchema('prompt: "Write a plan for: {goal}"')
    .min(1, { error: 'the prompt is empty; say what the agent should write' })
    .optional(),
  content: textSchema('content: "{plan.output}"').optional(),
  commands: listSchema(
    listSchema(
      z.string({
        error: (issue) =>
          `expected an argument as text, got ${describeValue(issue.input)}; quote it, as in [node, --test, "1"]`,
      }),
      'commands: [[node, --test, test]]',
    ).min(1, { error: 'a command is an empty list; name the program first, then its arguments' }),
    'commands: [[node, --test, test]]',
  )
    .min(1, { error: 'commands is empty; list at least one command, such as [[node, --test, test]]' })
    .optional(),
  timeout_ms: z
    .number({
      error: (issue) =>
        `expected a whole number of milliseconds, got ${describeValue(issue.input)}; write timeout_ms: 60000`,
    })
    .int({ error: 'expected a whole number of milliseconds; write timeout_ms: 60000' })
    .positive({ error: 'must be more than 0; write timeout_ms: 60000' })
    .optional(),
  contract: contractTypeSchema.optional(),
  output_path: textSchema('output_path: docs/<name>.md').min(1, {
    error: 'output_path is empty; name a file under docs/ or audits/',
  }),
  depends_on: listSchema(
    idSchema('node id', 'depends_on: [plan]').brand<'NodeId'>(),
    'depends_on: [plan]',
  ).optional(),
};

const graphShape = {
  name: idSchema('graph name', 'name: my_graph'),
  version: z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? 'missing; add version: "1"'
          : `expected a string, got ${describeValue(issue.input)}; quote it, as in version: "1", so YAML keeps it as written`,
    })
    .min(1, { error: 'the version is empty; write version: "1"' }),
  description: textSchema('description: What this graph produces').optional(),
  inputs: listSchema(
    z.string().regex(TEMPLATE_NAME_PATTERN, {
      error: (issue) =>
        `${describeValue(issue.input)} is not a valid input name; use letters, digits and "_", starting with a letter or "_", so it can be written {name} in templates`,
    }),
    'inputs: [goal]',
  ).optional(),
  mode: choiceSchema('mode', 'mode', GRAPH_MODES).optional(),
  budgets: budgetsSchema.optional(),
  nodes: z
    .array(
      z.strictObject(nodeShape, {
        error: (issue) =>
          issue.code === 'invalid_type'
            ? `expected a node (a mapping starting with "- id:"), got ${describeValue(issue.input)}`
            : undefined,
      }),
      {
        error: (issue) =>
          issue.input === undefined
            ? 'missing; add nodes: with a list of nodes'
            : `expected a list of nodes, got ${describeValue(issue.input)}; start each node with "- id:"`,
      },
    )
    .min(1, { error: 'the graph has no nodes; add at least one' })
    .max(MAX_GRAPH_NODES, { error: `a graph may have at most ${String(MAX_GRAPH_NODES)} nodes; split it` }),
};

/** The keys allowed in each mapping of a graph file, by dotted path (for "did you mean"). */
export const GRAPH_KEYS: Readonly<Record<string, AllowedKeys>> = Object.freeze({
  '': Object.keys(graphShape),
  'nodes.*': Object.keys(nodeShape),
  budgets: Object.keys(budgetsSchema.shape),
});

/** Zod schema of a graph file: its shape, then the rules across values (every issue reported at once). */
export const graphSchema = withRules(
  z.strictObject(graphShape, {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? `expected a mapping with name, version, inputs and nodes, got ${describeValue(issue.input)}; see docs/runtime.md`
        : undefined,
  }),
  checkGraphRules,
).transform((graph): GraphBody => ({
  name: graph.name,
  version: graph.version,
  description: graph.description ?? '',
  inputs: graph.inputs ?? [],
  mode: graph.mode ?? modeOfName(graph.name),
  ...(graph.budgets === undefined ? {} : { budgets: graph.budgets }),
  nodes: graph.nodes.map((node): GraphNode => ({
    id: node.id,
    type: node.type,
    dependsOn: node.depends_on ?? [],
    ...(node.agent === undefined ? {} : { agent: node.agent }),
    ...(node.prompt === undefined ? {} : { prompt: node.prompt }),
    ...(node.content === undefined ? {} : { content: node.content }),
    ...(node.commands === undefined ? {} : { commands: node.commands }),
    ...(node.timeout_ms === undefined ? {} : { timeoutMs: node.timeout_ms }),
    // A command node submits smoke_test_result itself: that is its contract, declared or not.
    ...(node.contract === undefined && node.type !== 'command'
      ? {}
      : { contract: node.contract ?? 'smoke_test_result' }),
    outputPath: node.output_path,
  })),
}));

function modeOfName(name: string): IngestMode {
  const mode = GRAPH_MODES.find((candidate) => candidate === name);
  return mode ?? 'unknown';
}
