import { openRunEventLog } from '../../events/index.js';
import { describeError } from '../../project/index.js';
import type { RetryDelayOptions } from '../../runtime/index.js';
import type { OtlpDestination } from '../../telemetry/index.js';
import type { CliWriter } from '../cli-io.js';
import { readRunTrace, sendRunTrace, shownEndpoint, traceFailureMessage } from '../run-trace.js';

/** The event a run's log gets when its trace could not be exported at its end. */
export const TRACE_EXPORT_FAILED_EVENT = 'trace.export_failed';

/**
 * Exports a run's trace as it ends (`run --otlp URL`, `run --langfuse`), with the mapper `export otlp` uses.
 * Fail-open: whatever goes wrong (the run unreadable, the receiver down or refusing) is a warning on `stderr` and
 * a WARNING event in the run's log, never a failed run; `export otlp RUN_ID` sends it again later.
 */
export async function exportRunTrace(
  projectDir: string,
  runId: string,
  destination: OtlpDestination,
  stderr: CliWriter,
  delay?: RetryDelayOptions,
): Promise<boolean> {
  let reason: string;
  try {
    const trace = await readRunTrace(projectDir, runId);
    if (trace.spans === 0) return true;
    const outcome = await sendRunTrace(trace, destination, stderr, delay);
    if (outcome.ok) {
      stderr.write(`sent ${trace.spans} spans of trace ${trace.traceId} to ${shownEndpoint(destination)}\n`);
      return true;
    }
    reason = traceFailureMessage(trace, destination, outcome);
  } catch (error) {
    reason = `the trace of ${runId} could not be exported: ${describeError(error)}`;
  }
  stderr.write(
    `artifact-ingest: warning: ${reason}; the run is not affected: send it later with 'artifact-ingest export otlp ${runId}'\n`,
  );
  await logFailure(projectDir, runId, destination, reason, stderr);
  return false;
}

async function logFailure(
  projectDir: string,
  runId: string,
  destination: OtlpDestination,
  reason: string,
  stderr: CliWriter,
): Promise<void> {
  try {
    const log = await openRunEventLog(projectDir, runId, { run_id: runId });
    log.write('WARNING', TRACE_EXPORT_FAILED_EVENT, { endpoint: shownEndpoint(destination), reason });
    await log.close();
  } catch (error) {
    stderr.write(
      `artifact-ingest: warning: the run's event log did not take the failure: ${describeError(error)}\n`,
    );
  }
}
