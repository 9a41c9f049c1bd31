import { MAX_ARTIFACT_BYTES } from './validate-artifact.js';
import { PROJECT_PATH_PATTERN } from './artifact-schemas.js';
import { CONTRACT_EXAMPLES } from './contract-examples.js';
import { contractJsonSchema } from './contract-json-schema.js';
import type { ContractType } from './contract-type.js';

type JsonSchema = Readonly<Record<string, unknown>>;

/** One row of a format doc's field table. */
export interface ContractField {
  /** The field's path as the validation errors name it, with `[]` for "each item": `changed_files[].change`. */
  readonly path: string;
  /** The JSON type in words: `text`, `whole number`, `list of objects`. */
  readonly type: string;
  readonly required: boolean;
  /** Every constraint the schema states, in words. */
  readonly constraints: readonly string[];
}

/** Who produces each type (spec contracts.md, "Types"). */
const PRODUCERS: Readonly<Record<ContractType, string>> = {
  product_spec: 'the product spec phase',
  planning_analysis_decision: 'the analysis of a plan',
  development_result: 'the development phase',
  development_analysis_decision: 'the analysis of a development result',
  issues: 'the review phase',
  review_analysis_decision: 'the analysis of a review',
  fix_result: 'the fix cycle',
  smoke_test_result: 'the smoke tests (a `command` node that runs them submits it itself)',
  commit_message: 'the commit phase',
  commit_cleanup: 'the commit phase',
};

const DECISION_RULE = 'It advances when `decision` is `accept` or `revise`; `reject` blocks the run.';
const RESULT_RULE =
  'It advances when `outcome` is `completed`; `partial` needs a fix (the same agent is asked again with the reason), `failed` blocks the run.';
const ALWAYS_RULE = 'It always advances once the artifact is valid.';

/** When the reducer of each type advances (reduce-artifact.ts; spec contracts.md, "Completion detection"). */
const REDUCER_RULES: Readonly<Record<ContractType, string>> = {
  product_spec: ALWAYS_RULE,
  planning_analysis_decision: DECISION_RULE,
  development_result: RESULT_RULE,
  development_analysis_decision: DECISION_RULE,
  issues:
    'It advances when no issue has severity `blocker`; one blocker blocks the run, and an `issues` artifact with a blocker submitted while a node works on another contract blocks that node too.',
  review_analysis_decision: DECISION_RULE,
  fix_result: RESULT_RULE,
  smoke_test_result: 'It advances when `failed` is 0; any failure blocks the run.',
  commit_message: ALWAYS_RULE,
  commit_cleanup: ALWAYS_RULE,
};

// Patterns the schemas use, said in words (null: the field's description says it); others are shown as is.
const PATTERN_WORDS: Readonly<Record<string, string | null>> = {
  '\\S': 'not empty (not only white space)',
  '[^.]$': 'no trailing period',
  '^[^\\r\\n]*$': 'one line',
  [PROJECT_PATH_PATTERN]: null,
};

/**
 * The rows of a type's field table, walked from its JSON Schema: every field at every depth, with its path as
 * the validation errors write it (`[]` standing for any index).
 */
export function contractFields(type: ContractType): ContractField[] {
  const fields: ContractField[] = [];
  walkObject(contractJsonSchema(type), '', fields);
  return fields;
}

/** The format doc of one contract type, docs/contracts/<type>.md, generated from its JSON Schema and example. */
export function renderContractDoc(type: ContractType): string {
  const schema = contractJsonSchema(type);
  const rows = contractFields(type).map((field) => [
    `\`${field.path}\``,
    field.type,
    field.required ? 'required' : 'optional',
    // A constraint written as a sentence keeps its period; the next one starts after it.
    field.constraints.map((words) => words.replace(/\.$/, '')).join('; '),
  ]);
  return [
    `<!-- Generated from the zod schema by renderContractDoc (npm run fixtures:regen); do not edit. -->`,
    `# \`${type}\``,
    '',
    `${typeof schema['description'] === 'string' ? schema['description'] : ''} Produced by ${PRODUCERS[type]}. The lifecycle of contracts is in [../contracts.md](../contracts.md); the JSON Schema is [${type}.schema.json](${type}.schema.json).`,
    '',
    '## Fields',
    '',
    `One JSON object of at most ${String(MAX_ARTIFACT_BYTES)} bytes. Unknown keys are refused at every level (a misspelt key is answered with "did you mean"); a list may be empty unless it says otherwise. \`[]\` in a path stands for any item of the list: an error names the item, as in \`${errorPathExample(type)}\`.`,
    '',
    ...table(['field', 'type', 'required', 'constraints'], rows),
    '',
    '## When it advances',
    '',
    `A node or step with \`contract: ${type}\` is done when the agent returned, a valid \`${type}\` artifact was submitted canonically during it, and its reducer advances. ${REDUCER_RULES[type]}`,
    '',
    '## How to submit',
    '',
    `Every way goes through the one canonical path (\`submitArtifact\`), which validates the payload, writes \`.agent/artifacts/<run_id>/${type}.json\`, appends an \`artifact.submitted\` event and records the version. A refusal lists every field error with the expected value; fix them and submit the whole artifact again.`,
    '',
    `- In a graph node's document: one fenced block opened with \`\`\`\` \`\`\`json artifact=${type} \`\`\`\` holding the JSON object, as in the example below. The block is submitted, never written to \`workspace/\` (its manifest entry is \`skipped\`, \`contract_block\`).`,
    `- Through MCP: the \`submit_artifact\` tool with \`{ "type": "${type}", "payload": { ... } }\` (\`run_id\` is optional).`,
    `- From the command line: \`artifact-ingest submit ${type} FILE --run-id ID\` (\`-\` reads standard input); exit 0 accepted, 1 refused with the field errors, 2 usage.`,
    '',
    '## Example',
    '',
    `\`\`\`json artifact=${type}`,
    JSON.stringify(CONTRACT_EXAMPLES[type], null, 2),
    '```',
    '',
  ].join('\n');
}

function walkObject(schema: JsonSchema, prefix: string, fields: ContractField[]): void {
  const properties = (schema['properties'] ?? {}) as Readonly<Record<string, JsonSchema>>;
  const required = new Set((schema['required'] ?? []) as readonly string[]);
  for (const [key, child] of Object.entries(properties)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    fields.push({
      path,
      type: typeWords(child),
      required: required.has(key),
      constraints: constraintsOf(child),
    });
    if (child['type'] === 'object') walkObject(child, path, fields);
    const items = child['items'] as JsonSchema | undefined;
    if (child['type'] === 'array' && items?.['type'] === 'object') walkObject(items, `${path}[]`, fields);
  }
}

function typeWords(schema: JsonSchema): string {
  switch (schema['type']) {
    case 'string':
      return 'text';
    case 'integer':
      return 'whole number';
    case 'number':
      return 'number';
    case 'boolean':
      return '`true` or `false`';
    case 'object':
      return 'object';
    case 'array': {
      const items = (schema['items'] ?? {}) as JsonSchema;
      return items['type'] === 'object' ? 'list of objects' : `list of ${typeWords(items)}`;
    }
    default:
      return 'any JSON value';
  }
}

function constraintsOf(schema: JsonSchema): string[] {
  const words: string[] = [];
  const values = schema['enum'] as readonly unknown[] | undefined;
  if (values !== undefined) words.push(`one of ${values.map((value) => `\`${String(value)}\``).join(', ')}`);
  if (typeof schema['maxLength'] === 'number')
    words.push(`at most ${String(schema['maxLength'])} characters`);
  const patterns = [
    schema['pattern'],
    ...((schema['allOf'] ?? []) as readonly JsonSchema[]).map((part) => part['pattern']),
  ].filter((pattern): pattern is string => typeof pattern === 'string');
  for (const pattern of patterns) {
    const said = PATTERN_WORDS[pattern];
    if (said === undefined) words.push(`matches \`${pattern}\``);
    else if (said !== null) words.push(said);
  }
  // The ±2^53 bounds zod adds to every integer say nothing a reader needs.
  if (schema['exclusiveMinimum'] === 0) words.push('1 or more');
  if (schema['minimum'] === 0) words.push('0 or more');
  if (schema['type'] === 'object' && schema['additionalProperties'] === false)
    words.push('unknown keys refused');
  if (schema['type'] === 'array') {
    const items = (schema['items'] ?? {}) as JsonSchema;
    if (items['type'] === 'object') words.push('unknown keys refused in each item');
    else {
      const each = constraintsOf(items);
      if (each.length > 0) words.push(`each item: ${each.join(', ')}`);
    }
  }
  // The description leads: it says what the field is; the words after it say what it must be.
  return typeof schema['description'] === 'string' ? [schema['description'], ...words] : words;
}

/** A real error path of the type, for the doc's explanation of `[]`: the first field inside a list. */
function errorPathExample(type: ContractType): string {
  const nested = contractFields(type).find((field) => field.path.includes('[]'));
  return nested === undefined ? '(root)' : nested.path.replace('[]', '[0]');
}

/** A markdown table with its columns padded, so the generated file reads well as text too. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const cells = [header, ...rows].map((row) => row.map((cell) => cell.replaceAll('|', '\\|')));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]) =>
    `| ${row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join(' | ')} |`;
  const [head = [], ...body] = cells;
  return [line(head), `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`, ...body.map(line)];
}
