import type * as z from 'zod';

/** Every issue of a failed zod check in one line, `path: message; ...` (`(root)` for the value itself). */
export function describeSchemaIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}
