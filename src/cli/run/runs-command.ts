import { listRuns } from '../../runtime/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { renderTable } from '../render/index.js';
import { usingCommandProject } from '../using-command-project.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest runs`. */
export const RUNS_HELP = `Usage: artifact-ingest runs [--remote] [--project DIR] [--json]

List the runs of a project (.agent/runs/), oldest first: graph, status, nodes done, terminal state, last
update, and the host that created the run ('-' for runs made before runs recorded it).
A run marked "interrupted" was killed; finish it with 'artifact-ingest run --resume RUN_ID'.
With --remote: every run of the project's namespace in the remote, from whichever machine pushed it.

Options:
  --remote        read the runs from the remote the config names (docs/remote.md), not .agent/
  --project DIR   project root (default: current directory)
  --json          print the list as JSON
  -h, --help      show this help
`;

/** Runs `artifact-ingest runs`; returns the exit code. */
export async function runsCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('runs', args, {
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(RUNS_HELP);
    return 0;
  }
  if (positionals.length > 0)
    throw new UsageError(`runs takes no arguments, got ${positionals.join(' ')}`, 'runs');
  const runs = await usingCommandProject('runs', values, io, listRuns);
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(runs, null, 2)}\n`);
    return 0;
  }
  if (runs.length === 0) {
    io.stdout.write("no runs yet; start one with 'artifact-ingest run GRAPH'\n");
    return 0;
  }
  const rows = runs.map((run) => [
    run.run_id,
    run.kind === 'ingest' ? '(ingest)' : run.kind === 'workflow' ? `${run.graph} (workflow)` : run.graph,
    run.interrupted ? 'interrupted' : run.status,
    run.kind === 'workflow'
      ? `${String(run.nodes.completed)}/${String(run.nodes.total)} steps`
      : `${run.nodes.completed}/${run.nodes.total}`,
    run.terminal ?? '-',
    run.updated_at,
    run.host ?? '-',
  ]);
  io.stdout.write(
    `${renderTable(['run', 'graph', 'status', 'nodes', 'terminal', 'updated', 'host'], rows)}\n`,
  );
  for (const run of runs) {
    if (run.error !== undefined) io.stdout.write(`${run.run_id}: ${run.error}\n`);
  }
  return 0;
}
