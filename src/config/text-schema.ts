import * as z from 'zod';
import { describeValue } from './describe-value.js';

/** A YAML text value, with messages that show `example` for a missing or non-text value. */
export function textSchema(example: string) {
  return z.string({
    error: (issue) =>
      issue.input === undefined
        ? `missing; add ${example}`
        : `expected text, got ${describeValue(issue.input)}; write it as a string, such as ${example}`,
  });
}
