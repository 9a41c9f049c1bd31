import type { Completion } from './judge-completion.js';
import { contractSummary, describeFieldErrors, isContractType } from '../types/index.js';

/**
 * The request a `fix_needed` attempt sends back to the same agent: what was wrong (every field error, with the
 * expected value), what the type requires (`contractSummary`) and how to submit, appended to the original prompt
 * or instructions.
 */
export function fixRequest(
  contract: string,
  completion: Extract<Completion, { state: 'fix_needed' }>,
  attempt: { readonly number: number; readonly of: number },
): string {
  // describeFieldErrors ends with the summary; a reason alone (nothing submitted) gets it here.
  const problem =
    completion.errors.length > 0
      ? [describeFieldErrors(contract, completion.errors)]
      : [`${completion.reason}.`, ...(isContractType(contract) ? [contractSummary(contract)] : [])];
  return [
    `Fix request ${String(attempt.number)} of ${String(attempt.of)}: your previous answer did not satisfy the ${contract} contract.`,
    ...problem,
    `Submit the complete ${contract} artifact as one fenced block opened with \`\`\`json artifact=${contract} holding one JSON object (or with the submit_artifact tool).`,
  ].join('\n\n');
}
