import { rebuildArtifactIndex } from '../../artifacts/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest reindex`. */
export const REINDEX_HELP = `Usage: artifact-ingest reindex [--project DIR] [--json]

Rebuild every index from every run's artifacts.jsonl, the source of truth, and swap each in: the path
index (.agent/index/paths/, read by log and record), the run-order index (.agent/index/runs.jsonl) and
the history journal (.agent/index/history/, read by checkout). Run it when 'artifact-ingest verify'
reports index_missing_record, index_unknown_record or index_stale, after copying run folders by hand, or
once in a project recorded before the history journal existed (checkout reads every run until then).
Unreadable record lines are listed and left out. It writes only .agent/index/; runs and objects are not
changed. Run it when nothing is recording.

Options:
  --project DIR   project root (default: current directory)
  --json          print what was rebuilt (runs, records, paths, historySegments, problems) as JSON
  -h, --help      show this help

Exit codes: 0 rebuilt (even with unreadable lines, which are listed), 2 usage error.
`;

/** Runs `artifact-ingest reindex`; returns the exit code. */
export async function reindexCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('reindex', args, {
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(REINDEX_HELP);
    return 0;
  }
  if (positionals.length > 0) {
    throw new UsageError(`reindex takes no arguments, got ${positionals.join(' ')}`, 'reindex');
  }
  const rebuilt = await rebuildArtifactIndex(await resolveProject(values.project, 'reindex', io.cwd));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(rebuilt, null, 2)}\n`);
    return 0;
  }
  io.stdout.write(
    `reindexed ${rebuilt.runs} run(s): ${rebuilt.records} version record(s) of ${rebuilt.paths} path(s)\n`,
  );
  if (rebuilt.problems.length > 0) {
    io.stdout.write(`${rebuilt.problems.length} unreadable line(s) left out:\n`);
    for (const problem of rebuilt.problems) io.stdout.write(`  ${problem.code}: ${problem.message}\n`);
  }
  return 0;
}
