import { CONTRACT_EXAMPLES } from './contract-examples.js';
import { contractFields } from './contract-fields.js';
import type { ContractField } from './contract-fields.js';
import type { ContractType } from './contract-type.js';

/** Where an MCP client reads the format doc of each type: `artifact-ingest://contracts/<type>`. */
export const CONTRACT_DOC_URI_PREFIX = 'artifact-ingest://contracts/';

/** The longest example, as one line of JSON, that a summary shows; a longer one is left to the format doc. */
export const MAX_SUMMARY_EXAMPLE_CHARS = 300;

/** The URI of the MCP resource that holds the format doc of `type` (the text of docs/contracts/<type>.md). */
export function contractDocUri(type: ContractType): string {
  return `${CONTRACT_DOC_URI_PREFIX}${type}`;
}

/**
 * What a contract type requires, in a few lines an agent can act on without reading any file: each top-level
 * field with its shape (values, nested fields, rules), one valid example when it is short, and where the full
 * format is. Rendered from the same field walk as the format doc, so both follow the zod schema.
 */
export function contractSummary(type: ContractType): string {
  const fields = contractFields(type);
  const example = JSON.stringify(CONTRACT_EXAMPLES[type]);
  return [
    `The ${type} artifact is one JSON object (\`?\` marks an optional field; unknown keys are refused):`,
    ...childrenOf(fields, '').map((field) => `- ${fieldShape(fields, field)}`),
    ...(example.length <= MAX_SUMMARY_EXAMPLE_CHARS ? [`Example: ${example}`] : []),
    `Full format: ${contractDocUri(type)}`,
  ].join('\n');
}

// `name?: shape`, a list of objects or an object with its own fields between braces.
function fieldShape(fields: readonly ContractField[], field: ContractField): string {
  const name = `${field.path.slice(field.path.lastIndexOf('.') + 1)}${field.required ? '' : '?'}`;
  const children = childrenOf(fields, field.path);
  if (children.length > 0) {
    const inner = `{ ${children.map((child) => fieldShape(fields, child)).join('; ')} }`;
    return `${name}: ${field.type === 'object' ? inner : `list of ${inner}`}`;
  }
  const values = field.values?.map((value) => JSON.stringify(value)).join(' | ');
  return `${name}: ${[values ?? field.type, ...field.rules].join(', ')}`;
}

// The fields directly inside `parent` ('' for the top level), whether it is an object or a list of objects.
function childrenOf(fields: readonly ContractField[], parent: string): ContractField[] {
  return fields.filter((field) => {
    if (parent === '') return !field.path.includes('.');
    const rest = field.path.startsWith(`${parent}[].`)
      ? field.path.slice(parent.length + 3)
      : field.path.startsWith(`${parent}.`)
        ? field.path.slice(parent.length + 1)
        : undefined;
    return rest !== undefined && !rest.includes('.');
  });
}
