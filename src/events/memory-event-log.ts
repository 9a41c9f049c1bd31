import { createEventLog } from './create-event-log.js';
import type { EventFields, EventLog } from './event-log.js';

/** An event log kept in memory, for dry runs and tests: `lines` holds each parsed line in order. */
export interface MemoryEventLog extends EventLog {
  /** Every line written by this log or its children, parsed, exactly as a file would hold it. */
  readonly lines: readonly Record<string, unknown>[];
}

/** Returns an event log that formats lines exactly as `openRunEventLog` does but keeps them in memory. */
export function memoryEventLog(bindings: EventFields = {}): MemoryEventLog {
  const lines: Record<string, unknown>[] = [];
  const log = createEventLog(
    {
      // Lines go through pino and JSON.parse, so a test sees the same shape a file would hold.
      destination: {
        // A writeAll hands over several lines at once.
        write: (text: string) => {
          for (const line of text.split('\n')) {
            if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
          }
        },
      },
      close: () => Promise.resolve(),
    },
    bindings,
  );
  return { ...log, lines };
}
