import type { DestinationStream, Logger } from 'pino';
import { pinoModule } from './pino-module.js';
import { EVENT_NAME_PATTERN } from './event-line.js';
import { isEventLevel, type EventLevel } from './event-level.js';
import type { EventFields, EventLog } from './event-log.js';
import { redactFields } from './redact-fields.js';

/** Keys every line carries itself; a field or binding with one of these names would make a duplicate key. */
const RESERVED_KEYS = ['ts', 'level', 'event'] as const;

/** Keys that would mean a caller is logging block contents, which events never carry (spec section 5). */
const CONTENT_KEYS = ['content', 'contents'] as const;

const PINO_METHOD = { INFO: 'info', WARNING: 'warn', ERROR: 'error' } as const satisfies Record<
  EventLevel,
  'info' | 'warn' | 'error'
>;

const LEVEL_LABEL: Readonly<Record<string, EventLevel>> = { info: 'INFO', warn: 'WARNING', error: 'ERROR' };

/** The sink a family of event logs (a root and its children) shares. */
export interface EventSink {
  readonly destination: DestinationStream;
  /** Flushes and releases the destination, rejecting with any I/O failure; called once per family. */
  readonly close: () => Promise<void>;
}

interface SharedState {
  readonly logger: Logger;
  readonly sink: EventSink;
  closing: Promise<void> | undefined;
  /** Lines formatted during a `writeAll`, sent to the sink together when it ends. */
  readonly batching: { lines: string[] | undefined };
}

/** Builds the root event log of a sink: a pino logger configured for the events.jsonl line format. */
export function createEventLog(sink: EventSink, bindings: EventFields = {}): EventLog {
  const batching: SharedState['batching'] = { lines: undefined };
  // pino formats each event and hands the line here; inside a writeAll the line waits for the others.
  const destination = {
    write: (line: string) => {
      if (batching.lines === undefined) sink.destination.write(line);
      else batching.lines.push(line);
    },
  };
  const logger = pinoModule().pino(
    {
      level: 'info',
      base: null,
      // pino lifts `obj[errorKey].message` into a `msg` key; point it at `level`, a key fields may never
      // carry, and replace pino's always-on `err` serializer, so `err` stays an ordinary, redacted field.
      errorKey: 'level',
      serializers: { err: (value: unknown) => value },
      timestamp: () => `,"ts":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: LEVEL_LABEL[label] ?? label.toUpperCase() }) },
    },
    destination,
  );
  return familyMember({ logger, sink, closing: undefined, batching }, checkedFields(bindings, 'binding'));
}

function familyMember(state: SharedState, bindings: Readonly<Record<string, unknown>>): EventLog {
  const member: EventLog = {
    write(level, event, fields) {
      if (state.closing !== undefined) {
        throw new Error(`event log is closed; write "${event}" before calling close()`);
      }
      if (!isEventLevel(level)) {
        throw new TypeError(`unknown event level ${JSON.stringify(level)}; use INFO, WARNING or ERROR`);
      }
      if (!EVENT_NAME_PATTERN.test(event)) {
        throw new TypeError(
          `event name ${JSON.stringify(event)} is not dotted lowercase words; write it like "ingest.block"`,
        );
      }
      // `event` first, then bindings, then fields: a field overrides a binding of the same name in place.
      const line = { event, ...bindings, ...(fields === undefined ? {} : checkedFields(fields, 'field')) };
      state.logger[PINO_METHOD[level]](line);
    },
    writeAll(entries) {
      if (state.batching.lines !== undefined) throw new Error('writeAll called inside another writeAll');
      const lines: string[] = [];
      state.batching.lines = lines;
      try {
        for (const { level, event, fields } of entries) member.write(level, event, fields);
      } finally {
        state.batching.lines = undefined;
        // Misuse part-way through still appends the events checked before it, as separate writes would have.
        if (lines.length > 0) state.sink.destination.write(lines.join(''));
      }
    },
    child(more) {
      return familyMember(state, { ...bindings, ...checkedFields(more, 'binding') });
    },
    close() {
      state.closing ??= state.sink.close();
      return state.closing;
    },
  };
  return member;
}

/** Refuses reserved and content keys (misuse), then redacts every string. */
function checkedFields(
  fields: Readonly<Record<string, unknown>>,
  kind: 'field' | 'binding',
): Record<string, unknown> {
  for (const key of RESERVED_KEYS) {
    if (Object.hasOwn(fields, key)) {
      throw new TypeError(
        `an event ${kind} may not be named "${key}": every line sets it; rename the ${kind}`,
      );
    }
  }
  for (const key of CONTENT_KEYS) {
    if (Object.hasOwn(fields, key)) {
      throw new TypeError(
        `an event ${kind} may not be named "${key}": block contents are never logged; log bytes and sha256 instead`,
      );
    }
  }
  return redactFields(fields);
}
