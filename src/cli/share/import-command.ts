import path from 'node:path';
import { importBundle } from '../../artifacts/index.js';
import type { ImportOptions } from '../../artifacts/index.js';
import { loadProjectConfig } from '../../config/index.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { resolveProject } from '../resolve-project.js';
import { UsageError } from '../usage-error.js';
import type { CliIo } from '../cli-io.js';

/** Help text of `artifact-ingest import`. */
export const IMPORT_HELP = `Usage: artifact-ingest import FILE.tar.gz [--project DIR] [--json] [--max-bytes N]
       [--max-file-bytes N] [--max-object-bytes N]

Add a run bundled by 'artifact-ingest bundle' to this project. The whole archive is checked first: only
.agent/bundle.json, the run's folder and objects are allowed, as plain files and folders (no links, no
absolute paths, no '..'), and every file and object must match its hash. Only then are the objects stored,
the run folder moved into place as a whole, and its versions added to the path index (so 'log' sees them).
Importing the same bundle again writes nothing, unless the project lost some of the run's objects or
index lines, which it restores. Any refusal writes nothing. Every entry's size is checked from its header
before its body is read, and the archive is streamed twice (check, then write), one entry in memory at a time.
Reading stops at the tar's end-of-archive marker: data after it, or more than 1 MiB of zero padding, refuses
the bundle.

Options:
  --project DIR   project root (default: current directory)
  --json          print the summary (runId, files, objects, objectsStored, alreadyImported) as JSON
  --max-bytes N         most bytes of all entries together (default 1 GiB)
  --max-file-bytes N    most bytes of one run file (default 64 MiB)
  --max-object-bytes N  most bytes of one object (default ingest.limits.max_document_bytes, 16 MiB)
  -h, --help      show this help

Exit codes: 0 imported (or already imported), 1 refused (nothing written; the message says why),
2 usage error.
`;

/** Runs `artifact-ingest import`; returns the exit code. */
export async function importCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('import', args, {
    project: { type: 'string' },
    json: { type: 'boolean' },
    'max-bytes': { type: 'string' },
    'max-file-bytes': { type: 'string' },
    'max-object-bytes': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(IMPORT_HELP);
    return 0;
  }
  const [bundleFile, ...extra] = positionals;
  if (bundleFile === undefined || extra.length > 0) {
    throw new UsageError('import takes exactly one FILE.tar.gz made by artifact-ingest bundle', 'import');
  }
  const projectDir = await resolveProject(values.project, 'import', io.cwd);
  const maxBytes = parseByteCount('--max-bytes', values['max-bytes']);
  const maxFileBytes = parseByteCount('--max-file-bytes', values['max-file-bytes']);
  const maxObjectBytes =
    parseByteCount('--max-object-bytes', values['max-object-bytes']) ??
    (await loadProjectConfig(projectDir)).ingest.limits.maxDocumentBytes;
  const options: ImportOptions = {
    maxObjectBytes,
    ...(maxBytes === undefined ? {} : { maxBytes }),
    ...(maxFileBytes === undefined ? {} : { maxFileBytes }),
  };
  const summary = await importBundle(projectDir, path.resolve(io.cwd, bundleFile), options);
  if (values.json === true) io.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  else if (summary.alreadyImported) {
    io.stdout.write(
      `run ${summary.runId} is already imported: its ${summary.files} files are identical; ${summary.objectsStored} missing objects stored\n`,
    );
  } else {
    io.stdout.write(
      `imported run ${summary.runId}: ${summary.files} files, ${summary.objects} objects (${summary.objectsStored} new to this project)\n`,
    );
  }
  return 0;
}

/** A `--max-*-bytes` value: a whole number of bytes of at least 1. */
function parseByteCount(flag: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(
      `${flag} '${text}' must be a whole number of bytes of at least 1, e.g. 16777216`,
      'import',
    );
  }
  return value;
}
