import type { Completion } from './judge-completion.js';
import { describeFieldErrors } from '../types/index.js';

/**
 * The request a `fix_needed` attempt sends back to the same agent: what was wrong (every field error, with the
 * expected value) and the one way to submit, appended to the original prompt or instructions.
 */
export function fixRequest(
  contract: string,
  completion: Extract<Completion, { state: 'fix_needed' }>,
  attempt: { readonly number: number; readonly of: number },
): string {
  const problem =
    completion.errors.length > 0 ? describeFieldErrors(contract, completion.errors) : `${completion.reason}.`;
  return [
    `Fix request ${String(attempt.number)} of ${String(attempt.of)}: your previous answer did not satisfy the ${contract} contract.`,
    problem,
    `Submit the complete ${contract} artifact as one fenced block opened with \`\`\`json artifact=${contract} holding one JSON object (or with the submit_artifact tool). The format is in docs/contracts/${contract}.md.`,
  ].join('\n\n');
}
