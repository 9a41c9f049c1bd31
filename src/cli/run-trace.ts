import { readRecordedRun, postWithRetries } from '../report/index.js';
import type { PostOutcome, ReportProblem } from '../report/index.js';
import type { RetryDelayOptions } from '../runtime/index.js';
import type { ProjectRef } from '../store/index.js';
import { otlpTraceRequestOf, runSpansOf, traceIdOfRun } from '../telemetry/index.js';
import type { OtlpDestination, OtlpTraceRequest } from '../telemetry/index.js';
import type { CliWriter } from './cli-io.js';
import { packageVersion } from './package-version.js';

/** A run's trace, ready to print or send: the OTLP/JSON request, its trace id and span count. */
export interface RunTrace {
  readonly runId: string;
  readonly traceId: string;
  readonly spans: number;
  readonly request: OtlpTraceRequest;
  /** What the run's records did not let the export read (the trace shows the rest). */
  readonly problems: readonly ReportProblem[];
}

/**
 * The trace of a run from what it recorded, read through the project's store (a remote as well as .agent/),
 * mapped to the span tree by the one mapper `export otlp` and `run --otlp` share.
 */
export async function readRunTrace(project: ProjectRef, runId: string): Promise<RunTrace> {
  const { recorded, problems } = await readRecordedRun(project, runId);
  const spans = runSpansOf(recorded);
  return {
    runId: recorded.run.runId,
    traceId: traceIdOfRun(recorded.run.runId),
    spans: spans.length,
    request: otlpTraceRequestOf(spans, packageVersion()),
    problems,
  };
}

/** Where a trace goes, as printed: the endpoint without its query (which may carry a token). */
export function shownEndpoint(destination: OtlpDestination): string {
  const { origin, pathname } = destination.endpoint;
  return `${origin}${pathname}`;
}

/**
 * POSTs the trace as OTLP/JSON to the destination, retrying and refusing as `export openlineage --url` does,
 * each retry announced on `stderr`; header values never appear in a message.
 */
export function sendRunTrace(
  trace: RunTrace,
  destination: OtlpDestination,
  stderr: CliWriter,
  delay?: RetryDelayOptions,
): Promise<PostOutcome> {
  return postWithRetries(JSON.stringify(trace.request), {
    endpoint: destination.endpoint,
    headers: destination.headers,
    secrets: destination.secrets,
    ...(destination.timeoutMs === undefined ? {} : { timeoutMs: destination.timeoutMs }),
    ...(delay === undefined ? {} : { delay }),
    onRetry: (retry) => {
      stderr.write(
        `artifact-ingest: trace of ${trace.runId}: ${retry.reason}; retrying in ${(retry.delayMs / 1000).toFixed(1)} s (attempt ${retry.attempt + 1})\n`,
      );
    },
  });
}

/** The one line that says why a trace was not accepted. */
export function traceFailureMessage(
  trace: RunTrace,
  destination: OtlpDestination,
  outcome: PostOutcome,
): string {
  if (outcome.ok) return '';
  const tried = outcome.attempts > 1 ? ` after ${outcome.attempts} attempts` : '';
  return `the trace of ${trace.runId} (${trace.spans} spans) was not accepted by ${shownEndpoint(destination)}${tried}: ${outcome.message}`;
}
