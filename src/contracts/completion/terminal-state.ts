import { StoreError, usingProject } from '../../store/index.js';
import type { ProjectRef } from '../../store/index.js';
import * as z from 'zod';
import type { EventFields, EventLog } from '../../events/index.js';
import { redactJson, terminalStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';

/** The four terminal states a run can end in (spec contracts.md, "Budgets and the terminal state"). */
export const TERMINAL_STATES = ['done', 'blocked', 'budget_exceeded', 'regression'] as const;

/** One of {@link TERMINAL_STATES}. */
export type TerminalStateName = (typeof TERMINAL_STATES)[number];

/** `.agent/runs/<run_id>/terminal.json` and the `run.terminal` event's fields. */
export const terminalStateSchema = z.strictObject({
  state: z.enum(TERMINAL_STATES),
  /** The project-relative path a reviewer reads, or null when the run produced no artifact to read. */
  artifact: z.string().min(1).nullable(),
  reason: z.string(),
  at: z.iso.datetime(),
});

/** A run's one terminal state. */
export type TerminalState = z.infer<typeof terminalStateSchema>;

/**
 * Writes terminal.json atomically through the project's store (replacing an earlier one: a resumed run declares
 * again), then appends the `run.terminal` event.
 */
export async function declareTerminal(
  project: ProjectRef,
  runId: RunId,
  events: EventLog,
  terminal: TerminalState,
  options: {
    readonly durability?: 'fsync' | 'none';
    /** More fields for the `run.terminal` event (such as the budgets used); the state's own fields win. */
    readonly eventFields?: EventFields;
  } = {},
): Promise<TerminalState> {
  // The reason may quote an error text: redacted like every record (docs/security.md, "Secrets").
  const checked = redactJson(terminalStateSchema.parse(terminal));
  const bytes = new TextEncoder().encode(`${JSON.stringify(checked, null, 2)}\n`);
  try {
    await usingProject(project, ({ store }) =>
      store.replace(terminalStatePath(runId), bytes, { durability: options.durability ?? 'fsync' }),
    );
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    const reason = error.refusal ?? error.code;
    throw new Error(`${terminalStatePath(runId)} was not written: ${reason}: ${error.message}`, {
      cause: error,
    });
  }
  events.write(checked.state === 'done' ? 'INFO' : 'WARNING', 'run.terminal', {
    ...options.eventFields,
    ...checked,
  });
  return checked;
}

/** Reads a run's terminal state; undefined when the run has not ended (or ended before contracts existed). */
export async function readTerminal(project: ProjectRef, runId: RunId): Promise<TerminalState | undefined> {
  const text = await usingProject(project, ({ store }) => store.readText(terminalStatePath(runId)));
  if (text === undefined) return undefined;
  const parsed = terminalStateSchema.safeParse(JSON.parse(text));
  return parsed.success ? parsed.data : undefined;
}
