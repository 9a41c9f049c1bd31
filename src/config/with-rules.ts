import type * as z from 'zod';
import type { YamlIssueParams } from './parse-yaml-with-schema.js';

/** One issue a rule across values finds in a YAML file: where it is, what to write instead, where to point. */
export interface YamlRuleIssue {
  readonly path: readonly (string | number)[];
  readonly message: string;
  readonly params?: YamlIssueParams;
}

/**
 * Adds every issue `check` finds to `schema`'s own. The check runs even when the shape has issues (rules
 * read the value defensively), so one load reports every problem of a file at once.
 */
export function withRules<S extends z.ZodType>(
  schema: S,
  check: (value: unknown) => readonly YamlRuleIssue[],
): S {
  return schema.superRefine(
    (value, context) => {
      for (const issue of check(value)) {
        context.addIssue({
          code: 'custom',
          path: [...issue.path],
          message: issue.message,
          params: issue.params,
        });
      }
    },
    { when: () => true },
  );
}
