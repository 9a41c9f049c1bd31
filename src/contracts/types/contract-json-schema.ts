import * as z from 'zod';
import { ARTIFACT_SCHEMAS } from './artifact-schemas.js';
import { CONTRACT_EXAMPLES } from './contract-examples.js';
import { CONTRACT_TYPES } from './contract-type.js';
import type { ContractType } from './contract-type.js';

/**
 * The JSON Schema (draft 2020-12) of one contract type, generated from its zod schema: closed objects
 * (`additionalProperties: false`), the subject and path rules as patterns, and the doc's example;
 * docs/contracts/<type>.schema.json holds a copy.
 */
export function contractJsonSchema(type: ContractType): Record<string, unknown> {
  return {
    title: `artifact-ingest ${type} artifact`,
    // io 'input': the payload as an agent writes it (the schemas have no transforms, so both agree today).
    ...z.toJSONSchema(ARTIFACT_SCHEMAS[type], { target: 'draft-2020-12', io: 'input' }),
    examples: [CONTRACT_EXAMPLES[type]],
  };
}

/** The JSON Schemas of all ten contract types, by type. */
export function contractJsonSchemas(): Record<ContractType, Record<string, unknown>> {
  return Object.fromEntries(CONTRACT_TYPES.map((type) => [type, contractJsonSchema(type)])) as Record<
    ContractType,
    Record<string, unknown>
  >;
}
