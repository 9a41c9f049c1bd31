import { MAX_ARTIFACT_BYTES } from './validate-artifact.js';
import { CONTRACT_EXAMPLES } from './contract-examples.js';
import { contractFields } from './contract-fields.js';
import { contractJsonSchema } from './contract-json-schema.js';
import type { ContractType } from './contract-type.js';

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
