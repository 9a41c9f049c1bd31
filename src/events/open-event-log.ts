import { closeSync, constants, fstatSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { pino } from 'pino';
import { pinoModule } from './pino-module.js';
import { createEventLog } from './create-event-log.js';
import { EventLogError } from './event-log-error.js';
import type { EventFields, EventLog } from './event-log.js';

/**
 * Opens `file` for appending (creating its parent directories) and returns an event log that writes each
 * event as one whole line with a single write(2), so concurrent writers never interleave (docs/events.md).
 */
export function openEventLog(file: string, bindings: EventFields = {}): EventLog {
  let destination: ReturnType<typeof pino.destination>;
  let fd: number | undefined;
  try {
    makeDirectories(dirname(file));
    // O_RDWR: the last byte is read on the same descriptor, so an event after an interrupted write starts a line.
    fd = openSync(file, constants.O_RDWR | constants.O_APPEND | constants.O_CREAT, 0o644);
    // sync: each line goes straight to one fs.writeSync on the O_APPEND descriptor, nothing is buffered.
    destination = pinoModule().pino.destination({ fd, sync: true });
  } catch (error) {
    if (fd !== undefined) closeSync(fd);
    throw new EventLogError('open', file, error);
  }
  const descriptor = fd;
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
          if (failure === undefined) destination.write(endsInsideLine(descriptor) ? `\n${line}` : line);
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

/**
 * `mkdir -p`; Node's recursive mkdir reports ENOENT when a missing folder cannot be made for another reason
 * (EROFS, EACCES), so on ENOENT each level is made in turn to surface the real cause.
 */
function makeDirectories(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const levels: string[] = [];
  for (let at = resolve(directory); dirname(at) !== at; at = dirname(at)) levels.unshift(at);
  for (const level of levels) {
    try {
      mkdirSync(level);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/** How long a last line without `\n` must stay unchanged to count as interrupted, not as a write in progress. */
const SETTLE_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Whether the file ends inside a line that an interrupted write left (a full disk, a kill): the last byte, read
 * with pread(2), is not `\n` and the size holds for SETTLE_MS, since another writer's line in progress can show
 * a size mid-line for a moment. An error reads as no: the write that follows reports it.
 */
function endsInsideLine(fd: number): boolean {
  try {
    let end = lastByteOf(fd);
    let stableFor = 0;
    for (let checks = 0; end.open && stableFor < SETTLE_MS && checks < 100 * SETTLE_MS; checks++) {
      // A synchronous 1 ms sleep: the sink writes synchronously, and this wait only happens at an open line.
      Atomics.wait(sleeper, 0, 0, 1);
      const now = lastByteOf(fd);
      stableFor = now.size === end.size ? stableFor + 1 : 0;
      end = now;
    }
    return end.open;
  } catch {
    return false;
  }
}

function lastByteOf(fd: number): { readonly size: number; readonly open: boolean } {
  const { size } = fstatSync(fd);
  if (size === 0) return { size, open: false };
  const last = Buffer.alloc(1);
  return { size, open: readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a };
}
