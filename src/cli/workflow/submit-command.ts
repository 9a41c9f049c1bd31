import { closestMatch, loadProjectConfig, resolveRemoteSettings } from '../../config/index.js';
import {
  CONTRACT_DOC_URI_PREFIX,
  CONTRACT_TYPES,
  MAX_ARTIFACT_BYTES,
  describeFieldErrors,
  fieldError,
  isContractType,
  submitArtifact,
  validateArtifactText,
} from '../../contracts/index.js';
import type { FieldError, SubmitOutcome } from '../../contracts/index.js';
import { describeError, parseNodeId } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { CliIo } from '../cli-io.js';
import { exitCodeFor } from '../exit-codes.js';
import { parseCommandArgs } from '../parse-command-args.js';
import { readArtifactPayload } from './read-artifact-payload.js';
import { resolveProject } from '../resolve-project.js';
import { resolveRunId } from '../resolve-run-id.js';
import { UsageError } from '../usage-error.js';

/** Help text of `artifact-ingest submit`. */
export const SUBMIT_HELP = `Usage: artifact-ingest submit TYPE [FILE | -] --run-id ID [--node-id ID] [--project DIR] [--json]

Submit a contract artifact through the one canonical path: validate the JSON payload against TYPE's schema,
write .agent/artifacts/<run_id>/<TYPE>.json atomically, append an artifact.submitted event and a record
linked to the previous submission of TYPE in the run. A refused payload writes nothing.

The payload is read from FILE, or from standard input with - (or when FILE is left out and input is piped);
at most ${String(MAX_ARTIFACT_BYTES)} bytes of UTF-8 JSON.

Types: ${CONTRACT_TYPES.join(', ')}
A refusal prints the fields TYPE requires. The full format of each type: the MCP resource
${CONTRACT_DOC_URI_PREFIX}<TYPE> of artifact-ingest mcp, and docs/contracts/<TYPE>.md in the package.

Options:
  --run-id ID     the run to submit to (required; it must exist in .agent/runs/)
  --node-id ID    the node or step the artifact belongs to (default: cli)
  --project DIR   project root (default: current directory)
  --json          print the outcome as JSON (refusals too)
  -h, --help      show this help

Exit codes: 0 accepted (prints the path and hash), 1 refused (each field error on stderr, one per line;
also a planted symlink, a busy run or a failed record), 2 usage error (unknown TYPE, missing --run-id,
bad flags, unreadable FILE, unknown run).
`;

/** Runs `artifact-ingest submit`; returns the exit code. */
export async function submitCommand(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('submit', args, {
    'run-id': { type: 'string' },
    'node-id': { type: 'string' },
    project: { type: 'string' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    io.stdout.write(SUBMIT_HELP);
    return 0;
  }
  const [type, file, ...extra] = positionals;
  if (type === undefined) {
    throw new UsageError(`submit needs TYPE, one of: ${CONTRACT_TYPES.join(', ')}`, 'submit');
  }
  if (extra.length > 0) {
    throw new UsageError(`submit takes TYPE and at most one FILE, got ${positionals.join(' ')}`, 'submit');
  }
  if (!isContractType(type)) {
    const suggestion = closestMatch(type, CONTRACT_TYPES);
    throw new UsageError(
      `unknown artifact type '${type}'; ${suggestion === undefined ? `types are: ${CONTRACT_TYPES.join(', ')}` : `did you mean ${suggestion}?`}`,
      'submit',
    );
  }
  if (values['run-id'] === undefined || values['run-id'] === '') {
    throw new UsageError('submit needs --run-id ID: the run the artifact belongs to', 'submit');
  }
  const taskId = parseNodeId(values['node-id'] ?? 'cli', '--node-id');
  const projectDir = await resolveProject(values.project, 'submit', io.cwd);
  const runId = await resolveRunId(projectDir, values['run-id'], '--run-id');

  const read = await readArtifactPayload(file, io, MAX_ARTIFACT_BYTES);
  let outcome: SubmitOutcome;
  if (read.ok) {
    const validation = validateArtifactText(type, read.text);
    outcome = validation.ok
      ? await submitArtifact({ projectDir, runId, taskId, agentId: 'cli', type, payload: validation.payload })
      : refusedPayload(type, validation.errors);
  } else {
    outcome = refusedPayload(type, [
      read.problem === 'too_large'
        ? fieldError([], `at most ${String(MAX_ARTIFACT_BYTES)} bytes of JSON`, `more in ${read.source}`)
        : fieldError([], 'UTF-8 JSON text', `bytes in ${read.source} that are not UTF-8`),
    ]);
  }
  if (values.json === true) io.stdout.write(`${JSON.stringify(outcome, null, 2)}\n`);
  if (!outcome.ok) {
    io.stderr.write(
      outcome.code === 'invalid_artifact'
        ? `${outcome.message}\n`
        : `artifact-ingest: ${outcome.code}: ${outcome.message}\n`,
    );
    return exitCodeFor(outcome.code);
  }
  await pushSubmission(projectDir, runId, io);
  if (values.json !== true) {
    const link = outcome.previous === undefined ? 'first submission' : `previous ${outcome.previous}`;
    const record = outcome.artifactId === undefined ? 'same bytes as the latest version' : outcome.artifactId;
    io.stdout.write(
      `${outcome.path}\n${outcome.contentHash} (${String(outcome.bytes)} bytes; record ${record}, ${link})\n`,
    );
  }
  return 0;
}

/**
 * Local first: the submission is on disk; with a remote configured the run is pushed now (fail-open: a remote that
 * is down, or a config that does not load, leaves the run for 'artifact-ingest push' and says so on stderr).
 */
async function pushSubmission(projectDir: string, runId: RunId, io: CliIo): Promise<void> {
  let remote;
  try {
    remote = resolveRemoteSettings(await loadProjectConfig(projectDir), io.env);
  } catch (error) {
    io.stderr.write(
      `artifact-ingest: warning: the submission is kept, but not pushed to a remote: ${describeError(error)}\n`,
    );
    return;
  }
  if (remote === undefined) return;
  const { pushRunNow } = await import('../../fleet/index.js');
  const { pushed } = await pushRunNow({ project: projectDir, remote, runId });
  if (!pushed) {
    io.stderr.write(
      `artifact-ingest: warning: run ${runId} was not pushed to the remote; it stays in .agent/outbox/ for 'artifact-ingest push'\n`,
    );
  }
}

function refusedPayload(type: string, errors: readonly FieldError[]): SubmitOutcome {
  return {
    ok: false,
    code: 'invalid_artifact',
    type,
    message: describeFieldErrors(type, errors),
    errors,
  };
}
