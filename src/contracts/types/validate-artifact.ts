import { ARTIFACT_SCHEMAS } from './artifact-schemas.js';
import type { ArtifactPayload } from './artifact-schemas.js';
import { CONTRACT_DOC_URI_PREFIX, contractSummary } from './contract-summary.js';
import { CONTRACT_TYPES, isContractType } from './contract-type.js';
import type { ContractType } from './contract-type.js';
import { MAX_FIELD_ERRORS, fieldError, fieldErrorsOf } from './field-error.js';
import type { FieldError } from './field-error.js';

/** Largest artifact payload accepted, as JSON text: a contract artifact is a summary, not a file dump. */
export const MAX_ARTIFACT_BYTES = 1024 * 1024;

/** Whether a payload satisfies its type: the payload as validated, or every field error. */
export type ArtifactValidation<T extends ContractType = ContractType> =
  | { readonly ok: true; readonly type: T; readonly payload: ArtifactPayload<T> }
  | { readonly ok: false; readonly type: string; readonly errors: readonly FieldError[] };

/** Validates a payload (already parsed JSON) against the schema of `type`; never throws on bad input. */
export function validateArtifact(type: string, payload: unknown): ArtifactValidation {
  if (!isContractType(type)) {
    return {
      ok: false,
      type,
      errors: [fieldError([], `a contract type: one of ${CONTRACT_TYPES.join(', ')}`, JSON.stringify(type))],
    };
  }
  const schema = ARTIFACT_SCHEMAS[type];
  const parsed = schema.safeParse(payload, { reportInput: true });
  if (parsed.success) return { ok: true, type, payload: parsed.data };
  return { ok: false, type, errors: fieldErrorsOf(parsed.error.issues, schema) };
}

/** Parses JSON text and validates it; a JSON syntax error is one field error at `(root)`. */
export function validateArtifactText(type: string, text: string): ArtifactValidation {
  if (Buffer.byteLength(text, 'utf8') > MAX_ARTIFACT_BYTES) {
    return {
      ok: false,
      type,
      errors: [
        fieldError(
          [],
          `at most ${String(MAX_ARTIFACT_BYTES)} bytes of JSON`,
          `${String(Buffer.byteLength(text, 'utf8'))} bytes`,
        ),
      ],
    };
  }
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : String(error);
    return {
      ok: false,
      type,
      errors: [fieldError([], 'one JSON object', `text that is not JSON (${reason})`)],
    };
  }
  return validateArtifact(type, payload);
}

/**
 * The errors as instructions an agent can act on: what to fix, field by field, how to resubmit, and what the type
 * requires (`contractSummary`), so nothing points at a file the agent's project does not have. Used in the
 * re-ask prompt of a `fix_needed` node and in the refusals of `submit` and `submit_artifact`.
 */
export function describeFieldErrors(type: string, errors: readonly FieldError[]): string {
  const lines = errors.map((error) => `- ${error.message}`);
  // fieldErrorsOf stops at MAX_FIELD_ERRORS: a full list may hide more, and the agent should not think it is done.
  const count =
    errors.length >= MAX_FIELD_ERRORS
      ? `at least ${String(errors.length)} fields to fix (the first ${String(errors.length)} are listed)`
      : `${String(errors.length)} field${errors.length === 1 ? '' : 's'} to fix`;
  return [
    `The ${type} artifact was refused: ${count}.`,
    ...lines,
    `Fix each field above and submit the whole ${type} artifact again.`,
    isContractType(type)
      ? contractSummary(type)
      : `The format of each type: ${CONTRACT_DOC_URI_PREFIX}<type>`,
  ].join('\n');
}
