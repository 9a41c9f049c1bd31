import * as z from 'zod';
import { describeValue } from '../../config/index.js';

/** How many times a `fix_needed` node or step is re-asked when no budget says otherwise. */
export const DEFAULT_MAX_FIX_ATTEMPTS = 2;

function countSchema(key: string, example: number) {
  return z
    .number({
      error: (issue) =>
        `expected a whole number, got ${describeValue(issue.input)}; write it as ${key}: ${String(example)}`,
    })
    .int({ error: `expected a whole number; write it as ${key}: ${String(example)}` })
    .min(0, { error: `must be 0 or more; write it as ${key}: ${String(example)}` });
}

/** The `budgets:` map of a graph or a workflow (spec contracts.md, "Budgets and the terminal state"). */
export const budgetsSchema = z.strictObject({
  max_minutes: z
    .number({
      error: (issue) =>
        `expected a number of minutes, got ${describeValue(issue.input)}; write max_minutes: 30`,
    })
    .positive({ error: 'must be more than 0; write max_minutes: 30' })
    .optional(),
  max_agent_calls: countSchema('max_agent_calls', 20)
    .min(1, { error: 'must be 1 or more; write max_agent_calls: 20' })
    .optional(),
  max_fix_attempts: countSchema('max_fix_attempts', DEFAULT_MAX_FIX_ATTEMPTS).optional(),
});

/** A run's budgets as declared (snake_case, as in YAML); an absent budget is unlimited (fix attempts: 2). */
export type Budgets = z.infer<typeof budgetsSchema>;

/** Which budget ran out. */
export type BudgetName = keyof Budgets;
