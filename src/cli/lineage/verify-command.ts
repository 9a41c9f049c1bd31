import { listRecordedRuns, verifyArtifacts } from '../../artifacts/index.js';
import type { VerifyProblem, VerifyReport } from '../../artifacts/index.js';
import { capRows } from '../render/index.js';
import type { EventGapProblem } from './event-gap-problems.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { usingCommandProject } from '../using-command-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest verify`. */
export const VERIFY_HELP = `Usage: artifact-ingest verify [RUN_ID] [--strict] [--project DIR] [--json]
       artifact-ingest verify RUN_ID --remote [--strict] [--project DIR] [--json]

Re-hash every object the records point to and every recorded workspace file, and report what no longer
matches. Without RUN_ID: all runs, and the path index is checked against the runs' artifacts.jsonl. With
RUN_ID: that run's records only (a workspace file is still compared with its newest version in the project).
Reads only: nothing is repaired or written.
With --remote: the run's records and every content they name, read from the remote the config names
(docs/remote.md); the folder here is not the workspace the run wrote, so no workspace file is compared.

Problems:
  missing_object         an object a record points to is not in .agent/objects
  corrupt_object         an object's bytes no longer hash to its name
  workspace_modified     a workspace file differs from its newest recorded version
  workspace_missing      a recorded workspace file is gone
  workspace_not_a_file   a symlink, folder or special file stands where a recorded file was
  unsafe_record_path     a record's path is one no writer records (.., absolute, .git/, outside
                         workspace/): it is never read; remove that line, then reindex
  invalid_record_line    a line of artifacts.jsonl (or of the index) cannot be read
  index_missing_record   a run's record is not in the path index (run 'artifact-ingest reindex')
  index_unknown_record   the path index holds a record no run has (run 'artifact-ingest reindex')
  index_stale            the history or run-order index cannot answer or disagrees with the runs, so
                         checkout reads every run (run 'artifact-ingest reindex')
  interrupted_ingest     an ingest started and never finished: its files may be on disk unrecorded
                         (ingest the document again with the same run and node id, or run --resume)
  stale_temp_file        a killed writer's temp file under workspace/ or .agent/ (warning; the next
                         write into its folder removes it)
  events_gap             a workflow's state.json (or a graph run's node) says more happened than its
                         events.jsonl holds: a process was killed in between (the next workflow call on
                         the run, or run --resume, appends the events, marked recovered)

Options:
  --strict        exit 1 on warnings too (index drift: index_missing_record, index_unknown_record,
                  index_stale, an unreadable index line; stale_temp_file)
  --remote        verify one run in the remote (RUN_ID required: a whole fleet's objects are not re-hashed
                  by one command)
  --project DIR   project root (default: current directory)
  --json          print the report as JSON
  -h, --help      show this help

Exit codes: 0 verified (no errors; warnings are reported), 1 corruption or drift found (any problem
but the index warnings, which 'artifact-ingest reindex' repairs; any problem at all with --strict),
2 usage error or RUN_ID unknown.
`;

/** Runs `artifact-ingest verify`; returns the exit code. */
export async function verifyCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('verify', args, {
    strict: { type: 'boolean' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(VERIFY_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (extra.length > 0) {
    throw new UsageError(
      `verify takes at most one RUN_ID, got ${positionals.join(' ')}; list runs with 'artifact-ingest runs'`,
      'verify',
    );
  }
  if (values.remote === true && runId === undefined) {
    throw new UsageError(
      "verify --remote checks one run: give its RUN_ID (list them with 'artifact-ingest runs --remote')",
      'verify',
    );
  }
  const { records, gaps } = await usingCommandProject('verify', values, io, async (project) => {
    const asked = runId === undefined ? undefined : await resolveRunId(project, runId);
    const verified = await verifyArtifacts(project, asked === undefined ? {} : { runId: asked });
    // The runs' state and events live above the records: checked here, reported as one report. The engines'
    // modules load only when there is a run to check.
    const runIds = asked === undefined ? await listRecordedRuns(project) : [asked];
    return {
      records: verified,
      gaps:
        runIds.length === 0
          ? []
          : await (await import('./event-gap-problems.js')).findEventGapProblems(project, runIds),
    };
  });
  const report: CliVerifyReport = {
    ...records,
    problems: [...records.problems, ...gaps],
    errors: records.errors + gaps.length,
  };
  io.stdout.write(
    values.json === true
      ? `${JSON.stringify(report, null, 2)}\n`
      : renderVerifyReport(report, io.stdout.isTTY === true),
  );
  const failing = report.problems.filter((problem) => values.strict === true || problem.severity === 'error');
  return failing.length > 0 ? 1 : 0;
}

/** What `verify` reports: the records' check and the runs' events check together. */
interface CliVerifyReport extends Omit<VerifyReport, 'problems'> {
  readonly problems: readonly (VerifyProblem | EventGapProblem)[];
}

function renderVerifyReport(report: CliVerifyReport, capped: boolean): string {
  const scope = report.scope.runId === undefined ? `${report.runs} run(s)` : `run ${report.scope.runId}`;
  const problems = report.problems.length === 0 ? 'no problems' : `${report.problems.length} problem(s)`;
  const summary = `verified ${scope}, ${report.records} record(s): objects ${report.objects.ok}/${report.objects.checked} ok, workspace files ${report.workspaceFiles.ok}/${report.workspaceFiles.checked} ok; ${problems}\n`;
  const shown = capRows(report.problems, capped);
  const lines = shown.rows.map((problem) => `${problem.code}: ${problem.message}\n`);
  return summary + lines.join('') + (shown.more === undefined ? '' : `${shown.more}\n`);
}
