import { openRunEventLog } from '../../events/index.js';
import type { EventLog } from '../../events/index.js';
import type { NodeId, RunId } from '../../project/index.js';
import type { ProjectRef } from '../../store/index.js';
import type { RecordFailure } from './ingest-records.js';

/** Where the failed recordings of one run are told: an `artifacts.error` event, code `record_failed`, each. */
export interface RecordFailureEvents {
  /** Writes the failure's event, after every one reported before it; never throws (fail-open). */
  readonly report: (failure: RecordFailure) => void;
  /** Waits for the events reported so far, then closes the log when this opened it. */
  readonly close: () => Promise<void>;
}

/** The run whose events.jsonl is opened on the first failure, when the caller holds no event log of its own. */
export interface RunOfFailures {
  readonly project: ProjectRef;
  readonly runId: RunId;
}

/** Options of {@link recordFailureEvents}. */
export interface RecordFailureEventsOptions {
  /** The node named by a failure that names none (a workflow step's records are all the step's). */
  readonly nodeId?: NodeId;
  /** Added to every message, e.g. ` (the run goes on)`. */
  readonly messageSuffix?: string;
  /** Told of a failure whose event could not be written either (the log as broken as the store). */
  readonly onUnwritten?: (failure: RecordFailure) => void;
}

/**
 * Turns recording failures into `artifacts.error` events, the one way every writer of a run reports them (the
 * graph runtime, the workflow engine, the CLI's and the library's ingest): into `target` when it is the run's
 * open event log, written at once, else into the run's events.jsonl, opened on the first failure.
 */
export function recordFailureEvents(
  target: EventLog | RunOfFailures,
  options: RecordFailureEventsOptions = {},
): RecordFailureEvents {
  const write = (log: EventLog, failure: RecordFailure): void => {
    const nodeId = failure.nodeId ?? options.nodeId;
    log.write('ERROR', 'artifacts.error', {
      ...(nodeId === undefined ? {} : { node_id: nodeId }),
      code: 'record_failed',
      message: `${failure.message}${options.messageSuffix ?? ''}`,
    });
  };
  const unwritten = (failure: RecordFailure): void => {
    try {
      options.onUnwritten?.(failure);
    } catch {
      // Reporting is fail-open all the way down.
    }
  };
  if (!('project' in target)) {
    return {
      report: (failure) => {
        try {
          write(target, failure);
        } catch {
          unwritten(failure);
        }
      },
      close: () => Promise.resolve(),
    };
  }
  let opened: Promise<EventLog | undefined> | undefined;
  let pending: Promise<void> = Promise.resolve();
  return {
    report: (failure) => {
      pending = pending.then(async () => {
        opened ??= openRunEventLog(target.project, target.runId, { run_id: target.runId }).catch(
          () => undefined,
        );
        const log = await opened;
        try {
          if (log === undefined) throw new Error('the run event log could not be opened');
          write(log, failure);
        } catch {
          unwritten(failure);
        }
      });
    },
    close: async () => {
      await pending;
      if (opened !== undefined) await (await opened)?.close().catch(() => undefined);
    },
  };
}
