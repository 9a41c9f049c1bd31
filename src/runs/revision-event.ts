import { z } from 'zod';
import { EVENT_LEVELS, EVENT_NAME_PATTERN } from '../events/index.js';

/**
 * One event of the change that wrote a state revision (`workflow.started`, `step.completed`, ...): kept in
 * state.json's `revision_events` and appended to events.jsonl with `state_revision` right after the write, so
 * what the state says happened is in the events even when the writer is killed in between (D89).
 */
export const revisionEventSchema = z
  .object({
    level: z.enum(EVENT_LEVELS),
    event: z.string().regex(EVENT_NAME_PATTERN),
    fields: z.record(z.string(), z.json()).readonly(),
  })
  .strict();

/** An event of a state revision, as state.json keeps it. */
export type RevisionEvent = Readonly<z.output<typeof revisionEventSchema>>;

/** The field that ties an appended event to the state revision it belongs to. */
export const STATE_REVISION_FIELD = 'state_revision';
