/** An I/O failure of the events.jsonl sink, with the system error's `code`, `path` and `syscall`. */
export class EventLogError extends Error {
  override readonly name = 'EventLogError';
  /** The system error code, such as `EACCES` or `ENOSPC`; `EUNKNOWN` when the cause had none. */
  readonly code: string;
  /** The events file the sink was opened on. */
  readonly path: string;
  /** What the sink was doing: `open`, `write` or `close`. */
  readonly syscall: 'open' | 'write' | 'close';

  constructor(syscall: 'open' | 'write' | 'close', path: string, cause: unknown) {
    const code = errorCode(cause);
    super(`cannot ${syscall} event log ${path} (${code}): ${hintFor(code)}`, { cause });
    this.code = code;
    this.path = path;
    this.syscall = syscall;
  }
}

function errorCode(cause: unknown): string {
  const code = (cause as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
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
