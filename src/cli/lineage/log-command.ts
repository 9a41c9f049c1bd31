import { basename, dirname, isAbsolute, join } from 'node:path';
import { logPath } from '../../artifacts/index.js';
import { capRows, renderTable } from '../render/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { usingCommandProject } from '../using-command-project.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';
import { quickFs } from '../../workspace/index.js';

/** Help text of `artifact-ingest log`. */
export const LOG_HELP = `Usage: artifact-ingest log PATH [--remote] [--project DIR] [--json]

Print every recorded version of a path across the project's runs, oldest first: time, run, node, agent,
type, lines added and removed, content hash and artifact id. Reads only the path's index file.
With --remote: every version the fleet pushed to the remote, from every machine, in the same order.

PATH is relative to the project (workspace/src/a.ts, docs/plan.md) or to workspace/ (src/a.ts is read as
workspace/src/a.ts); an absolute path inside the project works too. '\\' is read as '/'.

Options:
  --remote        read the versions from the remote the config names (docs/remote.md), not .agent/
  --project DIR   project root (default: current directory)
  --json          print the versions as JSON
  -h, --help      show this help

Exit codes: 0 versions listed, 1 no recorded version of PATH, 2 usage error (or PATH outside the project).
`;

/** Runs `artifact-ingest log`; returns the exit code. */
export async function logCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('log', args, {
    project: { type: 'string' },
    remote: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(LOG_HELP);
    return 0;
  }
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) {
    throw new UsageError('log takes exactly one PATH, such as workspace/src/a.ts or docs/plan.md', 'log');
  }
  const asked = await realAbsolutePath(path);
  const log = await usingCommandProject('log', values, io, (project) => logPath(project, asked));
  if (values.json === true) {
    io.stdout.write(`${JSON.stringify(log, null, 2)}\n`);
  } else if (log.versions.length > 0) {
    const shown = capRows(log.versions, io.stdout.isTTY === true);
    const rows = shown.rows.map((version) => [
      version.createdAt,
      version.runId,
      version.taskId,
      version.agentId,
      version.type,
      `+${version.linesAdded} -${version.linesRemoved}`,
      version.contentHash.replace(/^sha256:/, '').slice(0, 12),
      version.artifactId,
    ]);
    io.stdout.write(
      `${log.path}: ${log.versions.length} version(s)\n${renderTable(['time', 'run', 'node', 'agent', 'type', 'lines', 'hash', 'artifact'], rows)}\n`,
    );
    if (shown.more !== undefined) io.stdout.write(`${shown.more}\n`);
  }
  for (const problem of log.problems) {
    io.stderr.write(
      `artifact-ingest: ${problem.message}; run 'artifact-ingest reindex' to rebuild the index\n`,
    );
  }
  if (log.versions.length > 0) return 0;
  io.stderr.write(
    `artifact-ingest: no recorded versions of ${log.path}; paths look like workspace/src/a.ts or docs/plan.md (see 'artifact-ingest replay RUN_ID'), and if runs were recorded before the index existed, run 'artifact-ingest reindex'\n`,
  );
  return 1;
}

/**
 * An absolute path with its nearest existing folder resolved by realpath, as `--project` is, so a path typed
 * through a symlinked folder (macOS /tmp, a linked home) still lies inside the project.
 */
async function realAbsolutePath(path: string): Promise<string> {
  if (!isAbsolute(path)) return path;
  // Never the last component: a recorded file that is now a symlink must still be looked up by its own name.
  let folder = dirname(path);
  let rest = basename(path);
  for (;;) {
    const real = await quickFs.realpath(folder).catch(() => undefined);
    if (real !== undefined) return join(real, rest);
    const parent = dirname(folder);
    if (parent === folder) return path;
    rest = join(basename(folder), rest);
    folder = parent;
  }
}
