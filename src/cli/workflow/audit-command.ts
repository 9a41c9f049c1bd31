import { auditArtifacts } from '../../contracts/index.js';
import type { AuditReport } from '../../contracts/index.js';
import { capRows, renderTable } from '../render/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { UsageError } from '../usage-error.js';

/** Help text of `artifact-ingest audit`. */
export const AUDIT_HELP = `Usage: artifact-ingest audit [RUN_ID] [--strict] [--project DIR] [--json]

Check that every file under .agent/artifacts/ came through 'artifact-ingest submit' (or submit_artifact, or
an artifact= block) and is still what was submitted. Without RUN_ID: every run; with RUN_ID: that run.
Reads only: nothing is repaired, and no link is followed.

Findings:
  non_canonical   a file with no matching artifact.submitted event and submit record (written by hand),
                  a name that is not <type>.json, a folder of a run that does not exist, or anything that
                  is not a regular file (a symlink, a folder, a FIFO)
  modified        the file's bytes differ from its latest submission (edited, put back or deleted)
  invalid         a submit record whose stored payload no longer validates against its type's schema,
                  or whose object is missing or corrupt

Options:
  --strict        exit 1 on any finding
  --project DIR   project root (default: current directory)
  --json          print the report as JSON
  -h, --help      show this help

Exit codes: 0 audited (findings are reported; without --strict they do not fail), 1 a finding with
--strict, 2 usage error or RUN_ID unknown.
`;

/** Runs `artifact-ingest audit`; returns the exit code. */
export async function auditCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('audit', args, {
    strict: { type: 'boolean' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(AUDIT_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (extra.length > 0) {
    throw new UsageError(
      `audit takes at most one RUN_ID, got ${positionals.join(' ')}; list runs with 'artifact-ingest runs'`,
      'audit',
    );
  }
  const projectDir = await resolveProject(values.project, 'audit', io.cwd);
  // An unknown RUN_ID throws the shared UnknownRunError (exit 2); a folder of a run that does not exist is a finding.
  const report = await auditArtifacts({ projectDir, ...(runId === undefined ? {} : { runId }) });
  io.stdout.write(
    values.json === true
      ? `${JSON.stringify(report, null, 2)}\n`
      : renderAuditReport(report, io.stdout.isTTY === true),
  );
  return values.strict === true && report.findings.length > 0 ? 1 : 0;
}

function renderAuditReport(report: AuditReport, capped: boolean): string {
  const scope =
    report.scope.runId === undefined ? `${String(report.runs.length)} run(s)` : `run ${report.scope.runId}`;
  const found = report.findings.length === 0 ? 'no findings' : `${String(report.findings.length)} finding(s)`;
  const summary = `audited ${scope}: ${String(report.files)} file(s), ${String(report.records)} submit record(s); ${found}\n`;
  if (report.findings.length === 0) return summary;
  const shown = capRows(report.findings, capped);
  const rows = shown.rows.map((finding) => [
    finding.code,
    finding.run_id ?? '-',
    finding.path,
    finding.message,
  ]);
  const table = `${renderTable(['code', 'run', 'path', 'message'], rows)}\n`;
  return table + (shown.more === undefined ? '' : `${shown.more}\n`) + summary;
}
