import type { ArtifactPayload } from '../types/index.js';
import type { ContractType } from '../types/index.js';
import type { FieldError } from '../types/index.js';
import { reduceArtifact } from './reduce-artifact.js';
import type { Reduction } from './reduce-artifact.js';

/** One submission made during a node or step attempt, accepted or refused, in the order it was made. */
export type AttemptSubmission =
  | {
      readonly accepted: true;
      readonly type: ContractType;
      readonly path: string;
      readonly payload: ArtifactPayload;
    }
  | { readonly accepted: false; readonly type: string; readonly errors: readonly FieldError[] };

/** Everything completion detection looks at for one attempt. */
export interface CompletionInput {
  /** The node's or step's `contract:`. */
  readonly contract: ContractType;
  /** Whether the agent returned; otherwise the code and message of its failure (timeout, crash). */
  readonly agent:
    | { readonly returned: true }
    | { readonly returned: false; readonly code: string; readonly message: string };
  readonly submissions: readonly AttemptSubmission[];
}

/** The verdict on one attempt (spec contracts.md, "Completion detection"). */
export type Completion =
  | { readonly state: 'done'; readonly artifact: string }
  | {
      readonly state: 'fix_needed';
      /** Why, in one line. */
      readonly reason: string;
      /** The field errors of the latest refused submission of the contract type, if that is why. */
      readonly errors: readonly FieldError[];
    }
  | { readonly state: 'blocked'; readonly reason: string; readonly artifact: string | null };

/**
 * Decides whether an attempt is done: the agent returned, an artifact of the contract type was submitted
 * canonically during it, it satisfies the schema, and the type's reducer advances. A blocker `issues`
 * artifact submitted during the attempt blocks whatever the contract; a missing or malformed artifact, or an
 * agent that did not return, needs a fix.
 */
export function judgeCompletion(input: CompletionInput): Completion {
  for (const submission of input.submissions) {
    if (!submission.accepted || submission.type !== 'issues' || input.contract === 'issues') continue;
    const reduction = reduceArtifact('issues', submission.payload as ArtifactPayload<'issues'>);
    if (!reduction.advance) return { state: 'blocked', reason: reduction.reason, artifact: submission.path };
  }
  if (!input.agent.returned) {
    return {
      state: 'fix_needed',
      reason: `the agent did not return (${input.agent.code}: ${input.agent.message})`,
      errors: [],
    };
  }
  const ofType = input.submissions.filter((submission) => submission.type === input.contract);
  const accepted = ofType.filter((submission) => submission.accepted).at(-1);
  if (accepted === undefined) {
    const refused = ofType.at(-1);
    if (refused !== undefined && !refused.accepted) {
      return {
        state: 'fix_needed',
        reason: `the ${input.contract} artifact was refused (${String(refused.errors.length)} field error${refused.errors.length === 1 ? '' : 's'})`,
        errors: refused.errors,
      };
    }
    return { state: 'fix_needed', reason: `no ${input.contract} artifact was submitted`, errors: [] };
  }
  const reduction: Reduction = reduceArtifact(accepted.type, accepted.payload);
  if (reduction.advance) return { state: 'done', artifact: accepted.path };
  if (reduction.verdict === 'blocked')
    return { state: 'blocked', reason: reduction.reason, artifact: accepted.path };
  return { state: 'fix_needed', reason: reduction.reason, errors: [] };
}
