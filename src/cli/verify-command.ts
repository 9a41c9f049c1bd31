import { LineageError, verifyArtifacts } from '../artifacts/index.js';
import type { VerifyReport } from '../artifacts/index.js';
import { parseCommandArgs } from './parse-command-args.js';
import { resolveProject } from './resolve-project.js';
import { UsageError } from './usage-error.js';

/** Help text of `artifact-ingest verify`. */
export const VERIFY_HELP = `Usage: artifact-ingest verify [RUN_ID] [--strict] [--project DIR] [--json]

Re-hash every object the records point to and every recorded workspace file, and report what no longer
matches. Without RUN_ID: all runs, and the path index is checked against the runs' artifacts.jsonl. With
RUN_ID: that run's records only (a workspace file is still compared with its newest version in the project).
Reads only: nothing is repaired or written.

Problems:
  missing_object         an object a record points to is not in .agent/objects
  corrupt_object         an object's bytes no longer hash to its name
  workspace_modified     a workspace file differs from its newest recorded version
  workspace_missing      a recorded workspace file is gone
  workspace_not_a_file   a symlink, folder or special file stands where a recorded file was
  invalid_record_line    a line of artifacts.jsonl (or of the index) cannot be read
  index_missing_record   a run's record is not in the path index (run 'artifact-ingest reindex')
  index_unknown_record   the path index holds a record no run has (run 'artifact-ingest reindex')

Options:
  --strict        exit 1 when there is any problem
  --project DIR   project root (default: current directory)
  --json          print the report as JSON
  -h, --help      show this help

Exit codes: 0 verified (problems are reported, not fatal), 1 problems found with --strict or RUN_ID
unknown, 2 usage error.
`;

/** Runs `artifact-ingest verify`; returns the exit code. */
export async function verifyCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('verify', args, {
    strict: { type: 'boolean' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(VERIFY_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (extra.length > 0) {
    throw new UsageError(
      `verify takes at most one RUN_ID, got ${positionals.join(' ')}; list runs with 'artifact-ingest runs'`,
      'verify',
    );
  }
  const projectDir = await resolveProject(values.project, 'verify');
  let report;
  try {
    report = await verifyArtifacts(projectDir, runId === undefined ? {} : { runId });
  } catch (error) {
    if (!(error instanceof LineageError)) throw error;
    process.stderr.write(`artifact-ingest: ${error.message}\n`);
    return 1;
  }
  process.stdout.write(
    values.json === true ? `${JSON.stringify(report, null, 2)}\n` : renderVerifyReport(report),
  );
  return values.strict === true && report.problems.length > 0 ? 1 : 0;
}

function renderVerifyReport(report: VerifyReport): string {
  const scope = report.scope.runId === undefined ? `${report.runs} run(s)` : `run ${report.scope.runId}`;
  const problems = report.problems.length === 0 ? 'no problems' : `${report.problems.length} problem(s)`;
  const summary = `verified ${scope}, ${report.records} record(s): objects ${report.objects.ok}/${report.objects.checked} ok, workspace files ${report.workspaceFiles.ok}/${report.workspaceFiles.checked} ok; ${problems}\n`;
  return summary + report.problems.map((problem) => `${problem.code}: ${problem.message}\n`).join('');
}
