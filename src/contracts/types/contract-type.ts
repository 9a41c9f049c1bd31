import * as z from 'zod';
import { closestMatch, describeValue } from '../../config/index.js';

/** The ten artifact types a node or step may declare as its contract (spec contracts.md, "Types"). */
export const CONTRACT_TYPES = [
  'product_spec',
  'planning_analysis_decision',
  'development_result',
  'development_analysis_decision',
  'issues',
  'review_analysis_decision',
  'fix_result',
  'smoke_test_result',
  'commit_message',
  'commit_cleanup',
] as const;

/** One of {@link CONTRACT_TYPES}. */
export type ContractType = (typeof CONTRACT_TYPES)[number];

/** Whether `value` names a contract type. */
export function isContractType(value: unknown): value is ContractType {
  return typeof value === 'string' && (CONTRACT_TYPES as readonly string[]).includes(value);
}

/**
 * The `contract:` key of a graph node or a workflow step: one of {@link CONTRACT_TYPES}, a typo answered with
 * "did you mean", and where the types are described.
 */
export const contractTypeSchema = z.enum(CONTRACT_TYPES, {
  error: (issue) => {
    const suggestion =
      typeof issue.input === 'string' ? closestMatch(issue.input, CONTRACT_TYPES) : undefined;
    const advice =
      suggestion === undefined
        ? `write one of ${CONTRACT_TYPES.join(', ')}`
        : `did you mean "${suggestion}"?`;
    return `unknown contract type ${describeValue(issue.input)}; ${advice} (docs/contracts/)`;
  },
});
