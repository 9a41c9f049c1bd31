import { closestMatch } from '../../config/index.js';
import {
  DEFAULT_LINEAGE_NAMESPACE,
  facetSourcesFor,
  lineageEndpoint,
  openLineageEventsOf,
  readRunReport,
  sendLineageEvents,
} from '../../report/index.js';
import type { LineageSendProgress, RunEvent, RunReportOptions } from '../../report/index.js';
import { MIN_LITERAL_SECRET_LENGTH, isRedactableLiteral } from '../../project/index.js';
import type { CliIo } from '../cli-io.js';
import { packageVersion } from '../package-version.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { progressLine } from '../render/index.js';
import { usingCommandProject } from '../using-command-project.js';
import { exportGitCommand } from './export-git-command.js';
import { resolveRunId } from '../resolve-run-id.js';
import { LINEAGE_API_KEY_ENV } from '../secret-env.js';
import { UsageError } from '../usage-error.js';

export { LINEAGE_API_KEY_ENV } from '../secret-env.js';

/**
 * The report caps of an export: every file version is a dataset, so none is left out; no diff, document text or
 * block is read, since no event carries them.
 */
export const LINEAGE_REPORT_OPTIONS: RunReportOptions = Object.freeze({
  maxFiles: Number.MAX_SAFE_INTEGER,
  maxBlocks: 0,
  maxDiffBytesTotal: 0,
  maxDocumentBytesTotal: 0,
  // Events carry neither verify's verdict nor the contracts' audit: skip re-hashing every object for them.
  checks: false,
});

/** Help text of `artifact-ingest export`. */
export const EXPORT_HELP = `Usage: artifact-ingest export <format> RUN_ID [options]

Export a run's records in a format other tools read. Read-only: the run is not changed.

Formats:
  openlineage RUN_ID   OpenLineage RunEvents (NDJSON on stdout, or POSTed to a Marquez-compatible server)
  git RUN_ID           one git commit per node on swarm/ branches (docs/git.md)
  otlp RUN_ID          an OpenTelemetry trace (OTLP/JSON on stdout, or POSTed to an OTLP receiver or Langfuse)

With --remote, the run is read from the remote the config names (docs/remote.md) instead of .agent/.

Run 'artifact-ingest export openlineage --help' for its options. Documentation: docs/openlineage.md.
`;

/** Help text of `artifact-ingest export openlineage`. */
export const EXPORT_OPENLINEAGE_HELP = `Usage: artifact-ingest export openlineage RUN_ID [--url URL] [--namespace NS] [--remote] [--project DIR]

Turn a run into OpenLineage RunEvents (spec 2-0-2): the run is a job with a START and a COMPLETE, FAIL or
ABORT; each node or step that ran is a job <definition>.<step id> with a START and a COMPLETE or FAIL and the
run as its parent. The document a step wrote is its input and the files it wrote are its outputs, datasets
named by project-relative path. Nodes that never ran (pending, skipped) have no events. Run ids are UUIDs
derived from the namespace, RUN_ID and the step, so exporting again updates the same runs.

Without --url, prints one event per line (NDJSON) on stdout, in time order. With --url, POSTs each event as
JSON to URL/api/v1/lineage (Marquez's endpoint; a path in URL is kept, e.g. a proxy prefix), retrying
network errors, timeouts, 429 and 5xx with backoff; another status stops the export with its message.
Progress and errors go to stderr. When ${LINEAGE_API_KEY_ENV} is set, its value is sent as a Bearer token
and removed from everything printed, whatever its shape (a key shorter than ${MIN_LITERAL_SECRET_LENGTH} characters is not).

Options:
  --url URL         an http:// or https:// server, such as http://localhost:5000 (default: print NDJSON)
  --namespace NS    the OpenLineage namespace of the jobs and datasets (default: ${DEFAULT_LINEAGE_NAMESPACE})
  --remote          read the run from the remote the config names (docs/remote.md), not .agent/
  --project DIR     project root (default: current directory)
  -h, --help        show this help

Exit codes: 0 every event printed or accepted; 1 an event was not accepted (the events before it were);
2 usage error (unknown run, a bad URL or namespace).
`;

const FORMATS = ['openlineage', 'git', 'otlp'] as const;

/** Runs `artifact-ingest export <format>`; returns the exit code. */
export async function exportCommand(args: readonly string[], io: CliIo): Promise<number> {
  // `--project DIR` may come first (runCli puts a leading one there), so the format is the first other word.
  const at = formatIndex(args);
  const format = args[at];
  if (format === undefined || format === '-h' || format === '--help') {
    if (format === undefined) throw new UsageError(`name a format: ${FORMATS.join(', ')}`, 'export');
    io.stdout.write(EXPORT_HELP);
    return 0;
  }
  if (format === 'git') return exportGitCommand([...args.slice(0, at), ...args.slice(at + 1)], io);
  if (format === 'otlp') {
    const { exportOtlp } = await import('./export-otlp-command.js');
    return exportOtlp([...args.slice(0, at), ...args.slice(at + 1)], io);
  }
  if (format !== 'openlineage') {
    const suggestion = closestMatch(format, [...FORMATS]);
    throw new UsageError(
      `unknown export format '${format}'; ${suggestion === undefined ? `formats are: ${FORMATS.join(', ')}` : `did you mean ${suggestion}?`}`,
      'export',
    );
  }
  return exportOpenLineage([...args.slice(0, at), ...args.slice(at + 1)], io);
}

async function exportOpenLineage(args: readonly string[], io: CliIo): Promise<number> {
  const usage = 'export openlineage';
  const { values, positionals } = parseCommandArgs(usage, args, {
    url: { type: 'string' },
    namespace: { type: 'string' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(EXPORT_OPENLINEAGE_HELP);
    return 0;
  }
  const [runIdText, ...extra] = positionals;
  if (runIdText === undefined || extra.length > 0) {
    throw new UsageError(
      "export openlineage takes exactly one RUN_ID; list them with 'artifact-ingest runs'",
      usage,
    );
  }
  const namespace = values.namespace ?? DEFAULT_LINEAGE_NAMESPACE;
  // Marquez's namespace rule, the strictest of the consumers: letters, digits, _ - . : / and at most 1024.
  if (!/^[A-Za-z0-9_.:/-]{1,1024}$/.test(namespace)) {
    throw new UsageError(
      `--namespace must be 1 to 1024 letters, digits, '_', '-', '.', ':' or '/', such as ${DEFAULT_LINEAGE_NAMESPACE} or team-a; got '${namespace}'`,
      usage,
    );
  }
  // Checked before the run is read, so a typo in the URL costs nothing.
  const endpoint = values.url === undefined ? undefined : lineageEndpoint(values.url);
  if (endpoint?.ok === false) throw new UsageError(`--url: ${endpoint.message}`, usage);

  const { runId, report } = await usingCommandProject(usage, values, io, async (project) => {
    const resolved = await resolveRunId(project, runIdText);
    return { runId: resolved, report: await readRunReport(project, resolved, LINEAGE_REPORT_OPTIONS) };
  });
  for (const problem of report.problems) io.stderr.write(`artifact-ingest: warning: ${problem.message}\n`);
  const events = openLineageEventsOf(report, { ...facetSourcesFor(packageVersion()), namespace });
  if (events.length === 0) {
    io.stderr.write(`artifact-ingest: run ${runId} has no recorded start time; there is nothing to export\n`);
    return 0;
  }
  if (endpoint === undefined) {
    for (const event of events) io.stdout.write(`${JSON.stringify(event)}\n`);
    return 0;
  }
  return send(events, endpoint.url, io);
}

async function send(events: readonly RunEvent[], url: URL, io: CliIo): Promise<number> {
  const apiKey = io.env[LINEAGE_API_KEY_ENV];
  if (apiKey !== undefined && apiKey !== '' && !isRedactableLiteral(apiKey)) {
    io.stderr.write(
      `artifact-ingest: warning: ${LINEAGE_API_KEY_ENV} is shorter than ${MIN_LITERAL_SECRET_LENGTH} characters, so it is not removed from what is printed; use a longer key\n`,
    );
  }
  const progress = progressLine(io.stderr);
  const onProgress = (step: LineageSendProgress): void => {
    const event = events[step.index];
    const label = event === undefined ? '' : `${event.job.name} ${event.eventType}`;
    if (step.kind === 'accepted') {
      progress.update(step.index + 1, step.total, label);
      return;
    }
    progress.clear();
    io.stderr.write(
      `artifact-ingest: event ${step.index + 1} of ${step.total} (${label}): ${step.reason}; retrying in ${(step.delayMs / 1000).toFixed(1)} s (attempt ${step.attempt + 1})\n`,
    );
  };
  const result = await sendLineageEvents(events, {
    endpoint: url,
    ...(apiKey === undefined || apiKey === '' ? {} : { apiKey }),
    onProgress,
  });
  progress.clear();
  if (result.failure === null) {
    io.stderr.write(`sent ${result.accepted} events to ${url.href}\n`);
    return 0;
  }
  io.stderr.write(
    `artifact-ingest: ${result.failure.message}\n${result.accepted} of ${result.total} events were accepted; fix the cause and export again (the runs keep their ids, so nothing is doubled)\n`,
  );
  return 1;
}

/** The first argument that is not `--project DIR`, `--project=DIR` or `--remote`. */
function formatIndex(args: readonly string[]): number {
  let at = 0;
  while (at < args.length) {
    const arg = args[at];
    if (arg === '--project') at += 2;
    else if (arg?.startsWith('--project=') === true || arg === '--remote') at += 1;
    else return at;
  }
  return at;
}
