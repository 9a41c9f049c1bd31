import * as z from 'zod';
import { EVENT_LEVELS } from './event-level.js';

/** Event names are dotted lowercase words, the first naming the part that writes them: `ingest.block`. */
export const EVENT_NAME_PATTERN = /^[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+$/;

/** Schema of one parsed line of events.jsonl: `ts`, `level` and `event`, plus any bindings and fields. */
export const eventLineSchema = z.looseObject({
  ts: z.iso.datetime({ precision: 3 }),
  level: z.enum(EVENT_LEVELS),
  event: z.string().regex(EVENT_NAME_PATTERN),
});

/** One parsed line of events.jsonl. */
export type EventLine = z.infer<typeof eventLineSchema>;
