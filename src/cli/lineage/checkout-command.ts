import path from 'node:path';
import { checkoutWorkspace } from '../../artifacts/index.js';
import type { Checkout, CheckoutCut } from '../../artifacts/index.js';
import { capRows, renderTable } from '../render/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { usingCommandProject } from '../using-command-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest checkout`. */
export const CHECKOUT_HELP = `Usage: artifact-ingest checkout (--step N | --at TIME) [--run RUN_ID] --to DIR [--remote] [--project DIR] [--json]

Rebuild the workspace as it was into DIR, from the recorded versions in .agent/objects (every object's
hash is verified before the first file is written). It never writes into the live workspace, never runs
a node and never changes a run. DIR receives the files at their paths relative to workspace/.
With --remote: from the versions in the remote (the lineage of every machine that pushed to its
namespace), the contents fetched from its object store and verified the same way.

  --step N    the state after the run's N-th completed step (counting from 1; 0: before the run): the
              versions of its completed steps 1..N, plus every other run's versions recorded up to step
              N's trace (step 0: recorded before the run started). Failed and interrupted executions
              are not steps. The run is --run, or by default the most recently started one.
  --at TIME   the state at an instant (ISO 8601 with a zone: 2026-02-24T10:30:00Z): every run's versions
              recorded at or before TIME. With --run: that run's versions up to TIME, plus other runs'
              versions recorded before it started (and not after TIME).
For each path the newest included version wins.

Options:
  --step N        a step of the run (0 to its number of completed steps)
  --at TIME       an ISO 8601 date-time with a zone
  --run RUN_ID    the run (default for --step: the run started last)
  --to DIR        the folder to fill: missing or empty, outside the project's workspace/ and .agent/
  --remote        read the runs and contents from the remote the config names (docs/remote.md)
  --project DIR   project root (default: current directory)
  --json          print the checkout (cut, files) as JSON
  -h, --help      show this help

Exit codes: 0 checked out; 1 a missing or corrupt object (nothing is written); 2 usage (unknown run, step
out of range, invalid time, DIR not empty or inside the project: nothing is written).
`;

/** Runs `artifact-ingest checkout`; returns the exit code. */
export async function checkoutCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('checkout', args, {
    step: { type: 'string' },
    at: { type: 'string' },
    run: { type: 'string' },
    to: { type: 'string' },
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(CHECKOUT_HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(
      `checkout takes no arguments, got ${positionals.join(' ')}; pick the point with --step N or --at TIME`,
      'checkout',
    );
  }
  if ((values.step === undefined) === (values.at === undefined))
    throw new UsageError('give exactly one of --step N and --at TIME', 'checkout');
  if (values.to === undefined || values.to === '')
    throw new UsageError('--to DIR is required: the folder to rebuild the workspace into', 'checkout');
  if (values.step !== undefined && !/^\d+$/.test(values.step))
    throw new UsageError(`--step takes a whole number (0: before the run), got ${values.step}`, 'checkout');
  const to = path.resolve(io.cwd, values.to);
  const checkout: Checkout = await usingCommandProject('checkout', values, io, async (project) => {
    const runId = values.run === undefined ? undefined : await resolveRunId(project, values.run, '--run');
    return checkoutWorkspace(project, {
      to,
      ...(values.step === undefined ? {} : { step: Number(values.step) }),
      ...(values.at === undefined ? {} : { at: values.at }),
      ...(runId === undefined ? {} : { runId }),
    });
  });
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(checkout, null, 2)}\n`);
    return 0;
  }
  const count = checkout.files.length;
  io.stdout.write(
    `checked out ${count} ${count === 1 ? 'file' : 'files'} into ${checkout.to}: ${describeCut(checkout.cut)}\n`,
  );
  if (count > 0) {
    const shown = capRows(checkout.files, io.stdout.isTTY === true);
    const rows = shown.rows.map((file) => [file.path, file.runId, file.taskId, file.bytes, file.artifactId]);
    io.stdout.write(`${renderTable(['path', 'run', 'task', 'bytes', 'artifact'], rows)}\n`);
    if (shown.more !== undefined) io.stdout.write(`${shown.more}\n`);
  }
  for (const problem of checkout.problems) io.stderr.write(`artifact-ingest: warning: ${problem.message}\n`);
  return 0;
}

function describeCut(cut: CheckoutCut): string {
  switch (cut.kind) {
    case 'step':
      if (cut.step === 0)
        return `before run ${cut.runId}${cut.time === null ? '' : ` (started ${cut.time})`}`;
      return `run ${cut.runId} after step ${cut.step}${cut.time === null ? '' : ` (${cut.time})`}`;
    case 'at':
      return cut.runId === undefined
        ? `at ${cut.time}`
        : `run ${cut.runId} at ${cut.time} (other runs: what they recorded before it started)`;
  }
}
