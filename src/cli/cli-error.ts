import type { CliErrorCode } from './exit-codes.js';
import { NoRemoteError } from './no-remote-error.js';
import { UsageError } from './usage-error.js';

/** An expected error as the CLI reports it: its code, the message for a person, and the usage hint if any. */
export interface CliError {
  readonly code: CliErrorCode;
  readonly message: string;
  /** The command whose `--help` to point at, for a usage error (`''`: the main help). */
  readonly usageOf?: string;
}

/**
 * Classifies a thrown value as an expected {@link CliError}, or `undefined` for an internal error; the error
 * classes load only on this path, so a command that succeeds never pays for them.
 */
export async function classifyError(error: unknown, command: string): Promise<CliError | undefined> {
  if (error instanceof UsageError)
    return { code: error.code, message: error.message, usageOf: error.command };
  if (error instanceof NoRemoteError) return { code: error.code, message: error.message };
  const [
    { ConfigError },
    { InvalidIdError, UnknownRunError },
    { RunError, AgentError },
    { BundleError, LineageError, ObjectStoreError, RunCopyError },
    { IngestFailedError },
    { WorkspaceError },
    { EventLogError },
    { ObserveError, workflowErrorCodeOf },
    { RemoteError },
  ] = await Promise.all([
    import('../config/index.js'),
    import('../project/index.js'),
    import('../runtime/index.js'),
    import('../artifacts/index.js'),
    import('../ingest/index.js'),
    import('../workspace/index.js'),
    import('../events/index.js'),
    import('../workflow/index.js'),
    import('../remote/index.js'),
  ]);
  if (error instanceof ConfigError || error instanceof InvalidIdError || error instanceof UnknownRunError)
    return { code: error.code, message: error.message };
  // The engine's messages are the MCP tools' (spec workflow-mcp.md); the code lets a script tell them apart.
  const workflowCode = workflowErrorCodeOf(error);
  if (workflowCode !== undefined && error instanceof Error)
    return { code: workflowCode, message: `${workflowCode}: ${error.message}` };
  if (error instanceof ObserveError) return { code: error.code, message: `${error.code}: ${error.message}` };
  // A refusal of the work names its code, so a script can tell a hostile archive from a missing object.
  if (
    error instanceof RunError ||
    error instanceof AgentError ||
    error instanceof LineageError ||
    error instanceof ObjectStoreError ||
    error instanceof RemoteError
  ) {
    return { code: error.code, message: `${error.code}: ${error.message}` };
  }
  // The remote's messages name the catalog without its password and what to check (docs/remote.md).
  if (error instanceof RemoteError || error instanceof RunCopyError)
    return { code: error.code, message: `${error.code}: ${error.message}` };
  if (error instanceof BundleError)
    return { code: error.code, message: `${command} refused: ${error.code}: ${error.message}` };
  if (error instanceof IngestFailedError) return { code: 'ingest_failed', message: error.message };
  if (error instanceof WorkspaceError || error instanceof EventLogError)
    return { code: 'io_error', message: error.message };
  // A system call that failed below (a read-only or full disk, a permission): the work's problem, not a bug.
  if (isSystemError(error)) return { code: 'io_error', message: error.message };
  return undefined;
}

/** A Node system error: an errno `code` such as `EROFS` and the `syscall` that failed. */
function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  if (!(error instanceof Error)) return false;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return typeof code === 'string' && /^E[A-Z0-9]+$/.test(code) && typeof syscall === 'string';
}
