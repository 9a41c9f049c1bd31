import {
  LANGFUSE_OTLP_PATH,
  OTLP_ENV,
  OTLP_TRACES_PATH,
  otlpProtocolMismatch,
  otlpTarget,
} from '../../telemetry/index.js';
import type { OtlpDestination } from '../../telemetry/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveRunId } from '../resolve-run-id.js';
import { readRunTrace, sendRunTrace, shownEndpoint, traceFailureMessage } from '../run-trace.js';
import type { RunTrace } from '../run-trace.js';
import { UsageError } from '../usage-error.js';
import { usingCommandProject } from '../using-command-project.js';

/** Help text of `artifact-ingest export otlp`. */
export const EXPORT_OTLP_HELP = `Usage: artifact-ingest export otlp RUN_ID [--url URL | --langfuse] [--json] [--remote] [--project DIR]

Turn what a run recorded into one OpenTelemetry trace: a root span for the run, a child per node execution or
workflow step pass (attempts included), and under each an invoke_agent span for its agent call and an ingest
span with the block counts and one artifact.file event per file. Trace and span ids are derived from the run,
so exporting again sends the same spans, not new ones. Span names and attributes: docs/traces.md.

Without a destination, prints the OTLP/JSON ExportTraceServiceRequest on stdout. Otherwise POSTs it as
OTLP/HTTP JSON, retrying network errors, timeouts, 429 and 5xx with backoff; another status stops the export
and names it. Where it goes, the first that applies:
  --url URL          URL${OTLP_TRACES_PATH} (an OpenTelemetry Collector, Jaeger, Tempo, Phoenix, ...)
  --langfuse         <${OTLP_ENV.langfuseHost}>${LANGFUSE_OTLP_PATH}${OTLP_TRACES_PATH}, Basic auth with ${OTLP_ENV.langfusePublicKey}
                     and ${OTLP_ENV.langfuseSecretKey}; ${OTLP_ENV.langfuseBaseUrl} is read when ${OTLP_ENV.langfuseHost} is unset,
                     https://cloud.langfuse.com when neither is set
  ${OTLP_ENV.tracesEndpoint}   as is
  ${OTLP_ENV.endpoint}         with ${OTLP_TRACES_PATH} appended
With --url or an endpoint variable, ${OTLP_ENV.headers} and ${OTLP_ENV.tracesHeaders} (key=value,...,
values URL-encoded) are sent as headers; ${OTLP_ENV.tracesTimeout} or ${OTLP_ENV.timeout} sets each request's
timeout in ms (default 10000). Header values and the Langfuse secret key never appear in what is printed.

Options:
  --url URL       an http:// or https:// OTLP/HTTP receiver, such as http://localhost:4318
  --langfuse      send to Langfuse (the variables above)
  --json          when sending, print {runId, traceId, spans, endpoint} as JSON on stdout
  --remote        read the run from the remote the config names (docs/remote.md), not .agent/
  --project DIR   project root (default: current directory)
  -h, --help      show this help

Exit codes: 0 printed or accepted; 1 not accepted (the status or the network error is named); 2 usage error
(unknown run, a bad URL, a missing Langfuse key, bad ${OTLP_ENV.headers}).
`;

/** Runs `artifact-ingest export otlp` (its arguments after the format); returns the exit code. */
export async function exportOtlp(args: readonly string[], io: CliIo): Promise<number> {
  const usage = 'export otlp';
  const { values, positionals } = parseCommandArgs(usage, args, {
    url: { type: 'string' },
    langfuse: { type: 'boolean' },
    json: { type: 'boolean' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(EXPORT_OTLP_HELP);
    return 0;
  }
  const [runIdText, ...extra] = positionals;
  if (runIdText === undefined || extra.length > 0) {
    throw new UsageError(
      "export otlp takes exactly one RUN_ID; list them with 'artifact-ingest runs'",
      usage,
    );
  }
  if (values.url !== undefined && values.langfuse === true) {
    throw new UsageError('give --url or --langfuse, not both', usage);
  }
  // Checked before the run is read, so a typo in the URL or a missing key costs nothing.
  const target = otlpTarget(
    { ...(values.url === undefined ? {} : { url: values.url }), langfuse: values.langfuse === true },
    io.env,
  );
  if (!target.ok) throw new UsageError(target.message, usage);
  const trace = await usingCommandProject(usage, values, io, async (project) =>
    readRunTrace(project, await resolveRunId(project, runIdText)),
  );
  for (const problem of trace.problems) io.stderr.write(`artifact-ingest: warning: ${problem.message}\n`);
  if (trace.spans === 0) {
    io.stderr.write(
      `artifact-ingest: run ${trace.runId} has no recorded start time; there is nothing to export\n`,
    );
    return 0;
  }
  const { destination } = target;
  if (destination === null) {
    io.stdout.write(`${JSON.stringify(trace.request, null, 2)}\n`);
    return 0;
  }
  return send(trace, destination, values.json === true, io);
}

async function send(
  trace: RunTrace,
  destination: OtlpDestination,
  json: boolean,
  io: CliIo,
): Promise<number> {
  const mismatch = otlpProtocolMismatch(io.env);
  if (mismatch !== undefined && destination.source !== '--langfuse') {
    io.stderr.write(
      `artifact-ingest: warning: ${mismatch} is set, but the export sends OTLP/HTTP JSON (port 4318 on a Collector, not gRPC's 4317)\n`,
    );
  }
  const outcome = await sendRunTrace(trace, destination, io.stderr);
  if (!outcome.ok) {
    io.stderr.write(
      `artifact-ingest: ${traceFailureMessage(trace, destination, outcome)}\nfix the cause and export again (the spans keep their ids, so nothing is doubled)\n`,
    );
    return 1;
  }
  const endpoint = shownEndpoint(destination);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ runId: trace.runId, traceId: trace.traceId, spans: trace.spans, endpoint }, null, 2)}\n`,
    );
  }
  io.stderr.write(`sent ${trace.spans} spans of trace ${trace.traceId} to ${endpoint}\n`);
  return 0;
}
