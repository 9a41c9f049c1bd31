import { copyRun, RunCopyError } from '../../artifacts/index.js';
import { parseRunId } from '../../project/index.js';
import { hasRunFolder, openProject } from '../../store/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { UsageError } from '../usage-error.js';
import { copySummary } from './copy-summary.js';
import { fleetContext, openRemoteProject } from './fleet-context.js';

/** Help text of `artifact-ingest pull`. */
export const PULL_HELP = `Usage: artifact-ingest pull RUN_ID [--project DIR] [--json]

Copy a run from the remote (remote: in artifact-ingest.config.yaml; docs/remote.md) into this project's
.agent/, as 'import' adds a bundle: every record's paths are judged and every content is re-hashed as it is
read, and a run whose records or contents do not check out writes none of its records. Pulling a run again
copies only what is new; a run this project holds differently is refused (run_diverged). Afterwards 'replay',
'log', 'checkout' and 'verify' answer for it here as on the machine that ran it.

Options:
  --project DIR   project root (default: current directory)
  --json          print {"run_id", "records", "objects", "files", "bytes"}
  -h, --help      show this help

Exit codes: 0 pulled (or nothing new); 1 refused (corrupt_object, invalid_records, run_diverged, copy_busy)
or the remote did not answer (unreachable, remote_failed); 2 usage or configuration: no remote configured
(no_remote), a RUN_ID the remote does not hold (unknown_run), a catalog without the schema (schema_missing),
schema_too_new, s3_client_missing.
`;

/** Runs `artifact-ingest pull`; returns the exit code. */
export async function pullCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('pull', args, {
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(PULL_HELP);
    return 0;
  }
  const [text, ...extra] = positionals;
  if (text === undefined || extra.length > 0) {
    throw new UsageError(
      "pull takes exactly one RUN_ID; list the remote's runs with 'artifact-ingest runs --remote'",
      'pull',
    );
  }
  const runId = parseRunId(text, 'RUN_ID');
  const context = await fleetContext(values.project, 'pull', io);
  const remote = await openRemoteProject(context);
  try {
    // Asked before the copy takes its lock in .agent/: a run the remote lacks leaves nothing behind here.
    if (!(await hasRunFolder(remote, runId))) {
      throw new RunCopyError(
        'unknown_run',
        runId,
        `run ${runId} is not in ${remote.store.location}; list the remote's runs with 'artifact-ingest runs --remote'`,
      );
    }
    const local = openProject(context.projectDir);
    try {
      const copy = await copyRun(remote, local, runId, { direction: 'pull' });
      io.stdout.write(
        values.json === true
          ? `${JSON.stringify(copySummary(copy), null, 2)}\n`
          : `pulled ${copy.runId}: ${String(copy.recordsCopied)} records, ${String(copy.objectsStored)} objects, ${String(copy.filesWritten)} files, ${String(copy.bytesWritten)} bytes\n`,
      );
      return 0;
    } finally {
      await local.store.close();
    }
  } finally {
    await remote.store.close();
  }
}
