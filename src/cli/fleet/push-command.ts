import { listPending, pushRuns } from '../../fleet/index.js';
import type { PushReport } from '../../fleet/index.js';
import { RemoteError } from '../../remote/index.js';
import type { RunId } from '../../project/index.js';
import { listRecordedRuns, openProject } from '../../store/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import { copySummary } from './copy-summary.js';
import { fleetContext, openRemoteProject } from './fleet-context.js';

/** Help text of `artifact-ingest push`. */
export const PUSH_HELP = `Usage: artifact-ingest push [RUN_ID ...] [--all] [--project DIR] [--json]

Send this machine's runs to the remote (remote: in artifact-ingest.config.yaml; docs/remote.md). With no
RUN_ID and no --all, the runs the outbox holds (.agent/outbox/): those whose background push did not finish.
Each run is copied as far as the remote lacks it: the objects its new records name first (read verified by
hash), then the indexes and its files, and its records last, so a push killed at any point and run again
leaves everything in the remote exactly once. A run that fails is named with its reason and the others still
go; a run all in the remote leaves the outbox (unless it is still running here). One progress line per run on
stderr.

Options:
  --all           every run of this project, whatever the outbox holds
  --project DIR   project root (default: current directory)
  --json          print {"pushed": [{"run_id", "records", "objects", "files", "bytes"}],
                  "failed": [{"run_id", "code", "message"}], "pending": [RUN_ID, ...]}
  -h, --help      show this help

Exit codes: 0 every run asked for is in the remote (an empty outbox too); 1 a run could not be pushed
(unreachable, remote_failed, run_diverged, copy_busy, ...) or the remote did not answer: the outbox keeps
what was not pushed; 2 usage or configuration: no remote configured (no_remote), an unknown RUN_ID, a
catalog without the schema ('artifact-ingest remote init': schema_missing), schema_too_new,
s3_client_missing.
`;

/** Runs `artifact-ingest push`; returns the exit code. */
export async function pushCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('push', args, {
    all: { type: 'boolean' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(PUSH_HELP);
    return 0;
  }
  if (values.all === true && positionals.length > 0) {
    throw new UsageError('push takes RUN_IDs or --all, not both', 'push');
  }
  const context = await fleetContext(values.project, 'push', io);
  const local = openProject(context.projectDir);
  try {
    const named: RunId[] = [];
    for (const text of positionals) named.push(await resolveRunId(context.projectDir, text));
    const runIds =
      values.all === true
        ? await listRecordedRuns(local)
        : named.length > 0
          ? [...new Set(named)]
          : await listPending(local);
    // Nothing asked: nothing to connect to, and everything asked is (trivially) in the remote.
    const report =
      runIds.length === 0
        ? { pushed: [], failed: [], pending: [] }
        : await pushTo(context, local, runIds, io);
    io.stdout.write(
      values.json === true ? `${JSON.stringify(pushJson(report), null, 2)}\n` : pushText(report),
    );
    return report.failed.length === 0 ? 0 : 1;
  } finally {
    await local.store.close();
  }
}

async function pushTo(
  context: Parameters<typeof openRemoteProject>[0],
  local: ReturnType<typeof openProject>,
  runIds: readonly RunId[],
  io: CliIo,
): Promise<PushReport> {
  let remote;
  try {
    remote = await openRemoteProject(context);
  } catch (error) {
    if (!(error instanceof RemoteError)) throw error;
    const pending = await listPending(local);
    throw new RemoteError({
      code: error.code,
      part: error.part,
      message: `${error.message}; nothing was pushed${pending.length === 0 ? '' : `, and the outbox (.agent/outbox/) keeps ${String(pending.length)} run${pending.length === 1 ? '' : 's'} for the next push`}`,
      cause: error,
    });
  }
  try {
    return await pushRuns(local, remote, {
      runIds,
      onProgress: (line) => io.stderr.write(`artifact-ingest: ${line}\n`),
    });
  } finally {
    await remote.store.close();
  }
}

function pushJson(report: PushReport): object {
  return {
    pushed: report.pushed.map(copySummary),
    failed: report.failed.map((failure) => ({
      run_id: failure.runId,
      code: failure.code,
      message: failure.message,
    })),
    pending: report.pending,
  };
}

function pushText(report: PushReport): string {
  if (report.pushed.length + report.failed.length === 0) return 'nothing to push: the outbox is empty\n';
  const lines = [
    ...report.pushed.map(
      (copy) =>
        `pushed ${copy.runId}: ${String(copy.recordsCopied)} records, ${String(copy.objectsStored)} objects, ${String(copy.filesWritten)} files, ${String(copy.bytesWritten)} bytes`,
    ),
    ...report.failed.map((failure) => `failed ${failure.runId}: ${failure.code}: ${failure.message}`),
  ];
  if (report.pending.length > 0) {
    lines.push(`pending in .agent/outbox/: ${report.pending.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
