import path from 'node:path';
import { parseRunId, runEventsPath } from '../project/index.js';
import { usingProject } from '../store/index.js';
import type { LineAppender, ProjectRef, ProjectStore } from '../store/index.js';
import { createEventLog } from './create-event-log.js';
import type { EventSink } from './create-event-log.js';
import { EventLogError } from './event-log-error.js';
import type { EventFields, EventLog } from './event-log.js';

/**
 * Opens the run's events.jsonl (`.agent/runs/<run_id>/events.jsonl`) in the project's store, creating it when
 * missing, and returns an event log that appends each event as one whole line in one write the moment it is
 * logged, so concurrent writers never interleave (docs/events.md). A project folder's files store is opened for
 * this call only; the log keeps its own descriptor. Rejects with {@link EventLogError} when the log cannot be
 * opened, a key the store refuses (a symlinked run folder) included, and with `InvalidIdError` for a run id
 * that is not one.
 */
export async function openRunEventLog(
  project: ProjectRef,
  runId: string,
  bindings: EventFields = {},
): Promise<EventLog> {
  const key = runEventsPath(parseRunId(runId, 'runId'));
  const { appender, where } = await usingProject(project, async ({ store }) => {
    const shownAs = locationOf(store, key);
    try {
      return { appender: await store.openAppender(key), where: shownAs };
    } catch (error) {
      throw new EventLogError('open', shownAs, error);
    }
  });
  return createEventLog(appenderSink(appender, where), bindings);
}

/**
 * The sink of a log on `appender`. A failed write must not make the host fail (spec section 6): the first
 * failure is kept, later events are dropped instead of queued in memory, and close() reports it all.
 */
function appenderSink(appender: LineAppender, where: string): EventSink {
  let failure: EventLogError | undefined;
  let dropped = 0;
  return {
    destination: {
      write: (lines: string) => {
        if (failure !== undefined) {
          dropped += 1;
          return;
        }
        try {
          appender.write(lines);
        } catch (error) {
          failure = new EventLogError('write', where, error);
        }
      },
    },
    close: async () => {
      try {
        await appender.close();
      } catch (error) {
        failure ??= new EventLogError('close', where, error);
      }
      if (failure === undefined) return;
      if (dropped > 0) failure.message += `; ${String(dropped)} later event(s) were dropped`;
      throw failure;
    },
  };
}

/** What messages name for `key`: its file below the project folder, or the key in a memory store. */
function locationOf(store: ProjectStore, key: string): string {
  // The files store's location is the project's .agent folder, and keys begin with .agent/.
  return store.kind === 'files' ? path.join(path.dirname(store.location), key) : `${store.location}:${key}`;
}
