/** A system error code (`EACCES`); the store's codes are words (`write_refused`). */
const ERRNO = /^E[A-Z0-9]+$/;

/** An I/O failure of the events.jsonl sink, or the store's refusal of it: its `code`, `path` and `syscall`. */
export class EventLogError extends Error {
  override readonly name = 'EventLogError';
  /**
   * The system error code, such as `EACCES` or `ENOSPC`; the store's code (`write_refused`) when the store refused
   * the events file without a system error (a symlinked run folder); `EUNKNOWN` when the cause had neither.
   */
  readonly code: string;
  /** The events file the sink was opened on (`memory:<key>` in a memory store). */
  readonly path: string;
  /** What the sink was doing: `open`, `write` or `close`. */
  readonly syscall: 'open' | 'write' | 'close';

  constructor(syscall: 'open' | 'write' | 'close', path: string, cause: unknown) {
    const code = errorCode(cause);
    // A refusal of the store says itself what stands in the way; a system error gets a hint.
    const why = ERRNO.test(code) || !(cause instanceof Error) ? hintFor(code) : cause.message;
    super(`cannot ${syscall} event log ${path} (${code}): ${why}`, { cause });
    this.code = code;
    this.path = path;
    this.syscall = syscall;
  }
}

/**
 * The errno of `cause` or of a cause behind it (a store's refusal keeps the I/O error that made it), else the
 * first code met.
 */
function errorCode(cause: unknown): string {
  let firstCode: string | undefined;
  let at = cause;
  for (let depth = 0; depth < 8 && typeof at === 'object' && at !== null; depth += 1) {
    const { code, cause: behind } = at as { code?: unknown; cause?: unknown };
    if (typeof code === 'string') {
      if (ERRNO.test(code)) return code;
      firstCode ??= code;
    }
    at = behind;
  }
  return firstCode ?? 'EUNKNOWN';
}

function hintFor(code: string): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
    case 'EROFS':
      return 'make the run directory writable, or run from a project you can write to';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'free disk space; events written from here on may be lost';
    case 'ENOTDIR':
    case 'EISDIR':
      return 'a file or directory is in the way of the events file; remove it';
    default:
      return 'see the cause for details';
  }
}
