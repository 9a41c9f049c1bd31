import type { Project } from '../../store/index.js';
import { openIngestRecords, recordFailureEvents } from '../../artifacts/index.js';
import type { IngestRecords } from '../../artifacts/index.js';
import type { EventLog } from '../../events/index.js';
import type { RunId } from '../../project/index.js';

/** The artifact records of one run, kept fail-open: a recording failure becomes an `artifacts.error` event. */
export type RunRecorder = IngestRecords;

/** Options of {@link openRunRecorder}. */
export interface RunRecorderOptions {
  /** The project folder, or a `Project` whose store keeps the run. */
  readonly project: Project;
  readonly runId: RunId;
  /** The run's events (bound to its run_id): where recording failures are reported. */
  readonly events: EventLog;
  readonly now: () => Date;
  readonly durability: 'fsync' | 'none';
}

/** Opens the recorder of one run: the artifacts' one "record what was ingested", reporting to the run's events. */
export function openRunRecorder(options: RunRecorderOptions): RunRecorder {
  const { events } = options;
  return openIngestRecords({
    projectDir: options.project,
    runId: options.runId,
    now: options.now,
    durability: options.durability,
    // A closed or broken event log must not fail the node either (fail-open): stderr says it then.
    onFailure: recordFailureEvents(events, {
      messageSuffix: ' (the run goes on)',
      onUnwritten: ({ message }) => process.stderr.write(`artifact-ingest: ${message}\n`),
    }).report,
  });
}
