import { PROJECT_PATH_PATTERN } from './artifact-schemas.js';
import { contractJsonSchema } from './contract-json-schema.js';
import type { ContractType } from './contract-type.js';

type JsonSchema = Readonly<Record<string, unknown>>;

/** One field of a contract type, at any depth: a row of its format doc's table, a line of its summary. */
export interface ContractField {
  /** The field's path as the validation errors name it, with `[]` for "each item": `changed_files[].change`. */
  readonly path: string;
  /** The JSON type in words: `text`, `whole number`, `list of objects`. */
  readonly type: string;
  readonly required: boolean;
  /** Every constraint the schema states, in words: the description first, then the values and the rules. */
  readonly constraints: readonly string[];
  /** The values an enum field allows. */
  readonly values?: readonly string[];
  /** What the field must be, in short words, without its description, its values or the unknown-keys rule. */
  readonly rules: readonly string[];
}

interface PatternWords {
  readonly words: string;
  /** The words of a summary, where the rule is repeated field after field. */
  readonly short?: string;
  /** The field's description says it at length; the format doc's table leaves the short words out. */
  readonly describedAtLength?: true;
}

// Patterns the schemas use, said in words; others are shown as is.
const PATTERN_WORDS: Readonly<Record<string, PatternWords>> = {
  '\\S': { words: 'not empty (not only white space)', short: 'not empty' },
  '[^.]$': { words: 'no trailing period' },
  '^[^\\r\\n]*$': { words: 'one line' },
  [PROJECT_PATH_PATTERN]: {
    words: 'a project-relative path (no `..` segment, not absolute)',
    describedAtLength: true,
  },
};

/**
 * Every field of a type at every depth, walked from its JSON Schema, with its path as the validation errors
 * write it (`[]` standing for any index); the format doc and the short summary are both rendered from it.
 */
export function contractFields(type: ContractType): ContractField[] {
  const fields: ContractField[] = [];
  walkObject(contractJsonSchema(type), '', fields);
  return fields;
}

function walkObject(schema: JsonSchema, prefix: string, fields: ContractField[]): void {
  const properties = (schema['properties'] ?? {}) as Readonly<Record<string, JsonSchema>>;
  const required = new Set((schema['required'] ?? []) as readonly string[]);
  for (const [key, child] of Object.entries(properties)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const words = wordsOf(child);
    fields.push({
      path,
      type: typeWords(child),
      required: required.has(key),
      constraints: words.constraints,
      ...(words.values === undefined ? {} : { values: words.values }),
      rules: words.rules,
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

interface FieldWords {
  readonly constraints: string[];
  readonly values?: string[];
  readonly rules: string[];
}

function wordsOf(schema: JsonSchema): FieldWords {
  const description = typeof schema['description'] === 'string' ? schema['description'] : undefined;
  const values = (schema['enum'] as readonly unknown[] | undefined)?.map((value) => String(value));
  const rules: string[] = [];
  const tableRules: string[] = [];
  const rule = (words: string, short = words, inTable = true): void => {
    rules.push(short);
    if (inTable) tableRules.push(words);
  };
  if (typeof schema['maxLength'] === 'number') rule(`at most ${String(schema['maxLength'])} characters`);
  const patterns = [
    schema['pattern'],
    ...((schema['allOf'] ?? []) as readonly JsonSchema[]).map((part) => part['pattern']),
  ].filter((pattern): pattern is string => typeof pattern === 'string');
  for (const pattern of patterns) {
    const said = PATTERN_WORDS[pattern];
    if (said === undefined) rule(`matches \`${pattern}\``);
    else rule(said.words, said.short, !(said.describedAtLength === true && description !== undefined));
  }
  // The ±2^53 bounds zod adds to every integer say nothing a reader needs.
  if (schema['exclusiveMinimum'] === 0) rule('1 or more');
  if (schema['minimum'] === 0) rule('0 or more');
  const unknownKeys: string[] = [];
  if (schema['type'] === 'object' && schema['additionalProperties'] === false)
    unknownKeys.push('unknown keys refused');
  if (schema['type'] === 'array') {
    const items = (schema['items'] ?? {}) as JsonSchema;
    if (items['type'] === 'object') unknownKeys.push('unknown keys refused in each item');
    else {
      const each = wordsOf(items);
      const eachRules = [...oneOfWords(each.values), ...each.rules];
      if (each.constraints.length > 0) tableRules.push(`each item: ${each.constraints.join(', ')}`);
      if (eachRules.length > 0) rules.push(`each item: ${eachRules.join(', ')}`);
    }
  }
  return {
    // The description leads: it says what the field is; the words after it say what it must be.
    constraints: [
      ...(description === undefined ? [] : [description]),
      ...oneOfWords(values),
      ...tableRules,
      ...unknownKeys,
    ],
    ...(values === undefined ? {} : { values }),
    rules,
  };
}

function oneOfWords(values: readonly string[] | undefined): string[] {
  return values === undefined ? [] : [`one of ${values.map((value) => `\`${value}\``).join(', ')}`];
}
