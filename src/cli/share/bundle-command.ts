import path from 'node:path';
import { bundleRun } from '../../artifacts/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest bundle`. */
export const BUNDLE_HELP = `Usage: artifact-ingest bundle RUN_ID -o FILE.tar.gz [--force] [--project DIR] [--json]

Pack a run into one gzip tar: the run folder (.agent/runs/RUN_ID/, without its lock) and every object its
artifact records reference (.agent/objects/sha256/...), listed with their hashes in .agent/bundle.json.
Every object is verified first; a symlink or special file in the run folder refuses the bundle. The file
is written atomically and read back (every entry hashed) before it is moved into place: it is never
half-written. Move it to another project with 'artifact-ingest import'.

Options:
  -o, --output FILE   where to write the bundle (required); relative to the current directory
  --force             replace FILE if it exists
  --project DIR       project root (default: current directory)
  --json              print the summary (file, runId, files, objects, bytes) as JSON
  -h, --help          show this help

Exit codes: 0 bundled; 1 refused, nothing written (a missing or corrupt object, a file that did not read
back whole); 2 usage (unknown run, FILE exists without --force, FILE not writable).
`;

/** Runs `artifact-ingest bundle`; returns the exit code. */
export async function bundleCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('bundle', args, {
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(BUNDLE_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError("bundle takes exactly one RUN_ID; list them with 'artifact-ingest runs'", 'bundle');
  }
  if (values.output === undefined || values.output === '') {
    throw new UsageError('bundle needs -o FILE.tar.gz: where to write the bundle', 'bundle');
  }
  const projectDir = await resolveProject(values.project, 'bundle', io.cwd);
  const summary = await bundleRun(
    projectDir,
    await resolveRunId(projectDir, runId),
    path.resolve(io.cwd, values.output),
    { force: values.force === true },
  );
  io.stdout.write(
    values.json === true
      ? `${JSON.stringify(summary, null, 2)}\n`
      : `bundled run ${summary.runId}: ${summary.files} files, ${summary.objects} objects, ${summary.bytes} bytes\n-> ${summary.file}\n`,
  );
  return 0;
}
