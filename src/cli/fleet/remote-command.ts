import { closestMatch } from '../../config/index.js';
import { initRemote, remoteStatus } from '../../fleet/index.js';
import type { RemoteProblem, RemoteStatus } from '../../fleet/index.js';
import { catalogLocation } from '../../remote/index.js';
import { openProject } from '../../store/index.js';
import type { CliIo } from '../cli-io.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { UsageError } from '../usage-error.js';
import { FLEET_CONNECT_TIMEOUT_MS, fleetContext } from './fleet-context.js';

/** Help text of `artifact-ingest remote`. */
export const REMOTE_HELP = `Usage: artifact-ingest remote init [--project DIR] [--json]
       artifact-ingest remote status [--project DIR] [--json]

The remote: a PostgreSQL catalog and an object store (S3-compatible, or the catalog itself), configured
under remote: in artifact-ingest.config.yaml or by ARTIFACT_INGEST_REMOTE_CATALOG, _OBJECTS and _PROJECT;
passwords and keys come from the environment only (PGPASSWORD, AWS_*). docs/remote.md sets it up.

  init     create or migrate the catalog's schema to this package's version and print "from -> to"; safe
           when many machines run it at once (the migrations run under a lock; each is applied once). Once
           per catalog: every remote.project namespace then works in it.
  status   whether the catalog and the object store answer (each on its own, with the error when not),
           the catalog's schema version (and whether 'remote init' is needed), this namespace's runs there,
           and the runs this machine's outbox (.agent/outbox/) still holds.

Options:
  --project DIR   project root (default: current directory)
  --json          init: {"catalog", "from", "to"}; status: {"project", "catalog": {"location", "reachable",
                  "schema_version", "package_schema_version", "init_needed", "too_new"} or {"location",
                  "reachable": false, "error": {"code", "message"}}, "objects": {"location", "reachable",
                  "error"?}, "runs" (null when unknown), "pending": [RUN_ID, ...], "usable"}
  -h, --help      show this help

No output ever shows a password: the catalog is named by its URL without it.

Exit codes: init: 0 the schema is current; 1 the catalog did not answer (unreachable) or refused the work
(remote_failed: the role lacks CREATE?); 2 usage, no remote configured (no_remote), or a catalog newer than
this package (schema_too_new). status: 0 the remote is usable (both parts answer, the schema is current);
1 it is not (the JSON says which part and why); 2 usage or no remote configured.
`;

const OPTIONS = {
  project: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** Runs `artifact-ingest remote init|status`; returns the exit code. */
export async function remoteCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('remote', args, OPTIONS);
  if (values.help === true) {
    io.stdout.write(REMOTE_HELP);
    return 0;
  }
  const [subcommand, ...extra] = positionals;
  if (subcommand === undefined) {
    throw new UsageError('remote needs a subcommand: init or status', 'remote');
  }
  if (subcommand !== 'init' && subcommand !== 'status') {
    const suggestion = closestMatch(subcommand, ['init', 'status']);
    throw new UsageError(
      `unknown remote subcommand '${subcommand}'; ${suggestion === undefined ? 'it is init or status' : `did you mean ${suggestion}?`}`,
      'remote',
    );
  }
  if (extra.length > 0) {
    throw new UsageError(`remote ${subcommand} takes no arguments, got ${extra.join(' ')}`, 'remote');
  }
  const context = await fleetContext(values.project, `remote ${subcommand}`, io);
  const json = values.json === true;
  if (subcommand === 'init') {
    const location = catalogLocation(context.settings.catalog);
    const init = await initRemote(context.settings, { connectTimeoutMs: FLEET_CONNECT_TIMEOUT_MS });
    io.stdout.write(
      json
        ? `${JSON.stringify({ catalog: location, from: init.from, to: init.to }, null, 2)}\n`
        : `catalog ${location}: schema ${String(init.from)} -> ${String(init.to)}${init.from === init.to ? ' (already current)' : ''}\n`,
    );
    return 0;
  }
  const local = openProject(context.projectDir);
  try {
    const status = await remoteStatus(local, context.settings, {
      connectTimeoutMs: FLEET_CONNECT_TIMEOUT_MS,
    });
    io.stdout.write(json ? `${JSON.stringify(statusJson(status), null, 2)}\n` : statusText(status));
    return status.usable ? 0 : 1;
  } finally {
    await local.store.close();
  }
}

function statusJson(status: RemoteStatus): object {
  const { catalog, objects } = status;
  return {
    project: status.project,
    catalog: catalog.reachable
      ? {
          location: catalog.location,
          reachable: true,
          schema_version: catalog.schemaVersion,
          package_schema_version: catalog.packageSchemaVersion,
          init_needed: catalog.initNeeded,
          too_new: catalog.tooNew,
        }
      : { location: catalog.location, reachable: false, error: catalog.problem },
    objects: objects.reachable
      ? { location: objects.location, reachable: true }
      : { location: objects.location, reachable: false, error: objects.problem },
    runs: status.runs ?? null,
    pending: status.pending,
    usable: status.usable,
  };
}

function statusText(status: RemoteStatus): string {
  const { catalog, objects } = status;
  const schema = !catalog.reachable
    ? ''
    : catalog.tooNew
      ? `, schema ${String(catalog.schemaVersion)}: newer than this package's ${String(catalog.packageSchemaVersion)}; upgrade artifact-ingest`
      : catalog.initNeeded
        ? `, schema ${String(catalog.schemaVersion)} (this package uses ${String(catalog.packageSchemaVersion)}): run 'artifact-ingest remote init'`
        : `, schema ${String(catalog.schemaVersion)} (current)`;
  const lines = [
    `remote project ${status.project}`,
    `catalog  ${catalog.location}: ${catalog.reachable ? `reachable${schema}` : notUsable(catalog.problem)}`,
    `objects  ${objects.location}: ${objects.reachable ? 'reachable' : notUsable(objects.problem)}`,
    `runs     ${status.runs === undefined ? 'unknown (the catalog cannot list them)' : `${String(status.runs)} in this namespace`}`,
    `pending  ${status.pending.length === 0 ? 'none: the outbox is empty' : `${String(status.pending.length)} in .agent/outbox/: ${status.pending.join(', ')} ('artifact-ingest push' sends them)`}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** A part that cannot be used: `unreachable: ...` when it did not answer, else `not usable: ...` with its code. */
function notUsable(problem: RemoteProblem): string {
  return `${problem.code === 'unreachable' ? 'unreachable' : 'not usable'}: ${problem.code}: ${problem.message}`;
}
