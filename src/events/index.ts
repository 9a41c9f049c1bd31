export { EVENT_LEVELS, isEventLevel, type EventLevel } from './event-level.js';
export { EVENT_NAME_PATTERN, eventLineSchema, type EventLine } from './event-line.js';
export type { EventEntry, EventFields, EventLog } from './event-log.js';
export { EventLogError } from './event-log-error.js';
export { memoryEventLog, type MemoryEventLog } from './memory-event-log.js';
export { openRunEventLog } from './open-run-event-log.js';
export { redactFields } from './redact-fields.js';
// The patterns live in project/ so every layer can use them; events keeps its public names.
export { REDACTED, SECRET_PATTERN_NAMES, redactSecrets } from '../project/index.js';
export { openRunEventsReader, readRunEvents } from './read-run-events.js';
