import { pino } from 'pino';
import { createEventLog } from './create-event-log.js';
import { EventLogError } from './event-log-error.js';
import type { EventFields, EventLog } from './event-log.js';

/**
 * Opens `file` for appending (creating its parent directories) and returns an event log that writes each
 * event as one whole line with a single write(2), so concurrent writers never interleave (docs/events.md).
 */
export function openEventLog(file: string, bindings: EventFields = {}): EventLog {
  let destination: ReturnType<typeof pino.destination>;
  try {
    // sync: each line goes straight to one fs.writeSync on the O_APPEND descriptor, nothing is buffered.
    destination = pino.destination({ dest: file, append: true, sync: true, mkdir: true });
  } catch (error) {
    throw new EventLogError('open', file, error);
  }
  // A failed write must not make the host fail (spec section 6): keep the first failure, drop later
  // events instead of queueing them in memory, and report it all from close().
  let failure: EventLogError | undefined;
  let dropped = 0;
  let settleClose: ((error?: EventLogError) => void) | undefined;
  destination.on('error', (error: Error) => {
    failure ??= new EventLogError('write', file, error);
    settleClose?.(failure);
  });
  return createEventLog(
    {
      destination: {
        write: (line: string) => {
          if (failure === undefined) destination.write(line);
          else dropped += 1;
        },
      },
      close: () =>
        new Promise<void>((resolve, reject) => {
          settleClose = (error) => {
            settleClose = undefined;
            if (error === undefined) {
              resolve();
            } else {
              if (dropped > 0) error.message += `; ${String(dropped)} later event(s) were dropped`;
              reject(error);
            }
          };
          destination.once('close', () => settleClose?.(failure));
          // After a failure the unwritten line is still queued; destroy releases the descriptor without retrying it.
          if (failure === undefined) destination.end();
          else destination.destroy();
        }),
    },
    bindings,
  );
}
