import { BundleError, bundleRun } from '../artifacts/index.js';
import { parseCommandArgs } from './parse-command-args.js';
import { resolveProject } from './resolve-project.js';
import { UsageError } from './usage-error.js';

/** Help text of `artifact-ingest bundle`. */
export const BUNDLE_HELP = `Usage: artifact-ingest bundle RUN_ID -o FILE.tar.gz [--force] [--project DIR] [--json]

Pack a run into one gzip tar: the run folder (.agent/runs/RUN_ID/, without its lock) and every object its
artifact records reference (.agent/objects/sha256/...), listed with their hashes in .agent/bundle.json.
Every object is verified first; a symlink or special file in the run folder refuses the bundle. The file
is written atomically and never half-written. Move it to another project with 'artifact-ingest import'.

Options:
  -o, --output FILE   where to write the bundle (required); relative to the current directory
  --force             replace FILE if it exists
  --project DIR       project root (default: current directory)
  --json              print the summary (file, runId, files, objects, bytes) as JSON
  -h, --help          show this help

Exit codes: 0 bundled, 1 refused (nothing written; the message says why), 2 usage error.
`;

/** Runs `artifact-ingest bundle`; returns the exit code. */
export async function bundleCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('bundle', args, {
    output: { type: 'string', short: 'o' },
    force: { type: 'boolean' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    process.stdout.write(BUNDLE_HELP);
    return 0;
  }
  const [runId, ...extra] = positionals;
  if (runId === undefined || extra.length > 0) {
    throw new UsageError("bundle takes exactly one RUN_ID; list them with 'artifact-ingest runs'", 'bundle');
  }
  if (values.output === undefined || values.output === '') {
    throw new UsageError('bundle needs -o FILE.tar.gz: where to write the bundle', 'bundle');
  }
  const projectDir = await resolveProject(values.project, 'bundle');
  try {
    const summary = await bundleRun(projectDir, runId, values.output, { force: values.force === true });
    process.stdout.write(
      values.json === true
        ? `${JSON.stringify(summary, null, 2)}\n`
        : `bundled run ${summary.runId}: ${summary.files} files, ${summary.objects} objects, ${summary.bytes} bytes\n-> ${summary.file}\n`,
    );
    return 0;
  } catch (error) {
    if (!(error instanceof BundleError)) throw error;
    process.stderr.write(`artifact-ingest: bundle refused: ${error.code}: ${error.message}\n`);
    return 1;
  }
}
