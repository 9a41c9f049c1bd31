import { readRun } from '../../runtime/index.js';
import { capRows, renderTable } from '../render/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { renderRunReport } from '../render-run-report.js';
import { usingCommandProject } from '../using-command-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest show`. */
export const SHOW_HELP = `Usage: artifact-ingest show RUN_ID [--remote] [--project DIR] [--json]

Print one run: its nodes with their documents and ingested files, and its manifests.

Options:
  --remote        read the run from the remote the config names (docs/remote.md), not .agent/
  --project DIR   project root (default: current directory)
  --json          print the run (state, counts, manifests) as JSON
  -h, --help      show this help
`;

/** Runs `artifact-ingest show`; returns the exit code. */
export async function showCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('show', args, {
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(SHOW_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError("show takes exactly one RUN_ID; list them with 'artifact-ingest runs'", 'show');
  }
  const details = await usingCommandProject('show', values, io, async (project) =>
    readRun(project, await resolveRunId(project, runId)),
  );
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(details, null, 2)}\n`);
    return 0;
  }
  const shown = capRows(details.manifests, io.stdout.isTTY === true);
  const manifests = shown.rows.map((manifest) =>
    'error' in manifest
      ? [manifest.node_id, manifest.manifest_path, 'unreadable', '', '', '', manifest.error]
      : [
          manifest.node_id,
          manifest.manifest_path,
          manifest.doc_path,
          manifest.summary.written,
          manifest.summary.skipped,
          manifest.summary.rejected,
          '',
        ],
  );
  io.stdout.write(
    details.kind === 'graph'
      ? renderRunReport(details.state, details.terminal === undefined ? {} : { terminal: details.terminal })
      : `run ${details.run_id}: made by 'artifact-ingest ingest', ${details.status}, ${details.nodes.total} document(s), updated ${details.updated_at}\n`,
  );
  if (details.interrupted)
    io.stdout.write(`\nThis run was interrupted; finish it with 'artifact-ingest run --resume ${runId}'.\n`);
  io.stdout.write(
    manifests.length === 0
      ? '\nno manifests (ingest was off, or no node wrote a document yet)\n'
      : `\n${renderTable(['node', 'manifest', 'document', 'written', 'skipped', 'rejected', 'error'], manifests)}\n`,
  );
  if (shown.more !== undefined) io.stdout.write(`${shown.more}\n`);
  return 0;
}
