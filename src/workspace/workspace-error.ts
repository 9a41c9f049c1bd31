import { errnoOf } from './errno-of.js';

/** An unexpected filesystem failure of the confined writer; refusals are never thrown, they are WriteOutcome data. */
export class WorkspaceError extends Error {
  override readonly name = 'WorkspaceError';
  /** The errno name of the failed call, such as `EACCES` or `ENOSPC`. */
  readonly code: string;
  /** The path the call was about, as the caller would recognize it (never a `/proc/self/fd` alias). */
  readonly path: string;
  /** The failed system call, such as `open`, `rename` or `fsync`. */
  readonly syscall: string;

  constructor(fields: { code: string; path: string; syscall: string; cause?: unknown }) {
    super(`${fields.syscall} failed for ${fields.path} (${fields.code})`, { cause: fields.cause });
    this.code = fields.code;
    this.path = fields.path;
    this.syscall = fields.syscall;
  }
}

/** Wraps a failed Node fs call as a WorkspaceError that names the caller's path instead of the internal one. */
export function workspaceErrorFrom(cause: unknown, syscall: string, path: string): WorkspaceError {
  return new WorkspaceError({ code: errnoOf(cause) ?? 'EUNKNOWN', path, syscall, cause });
}

/** Runs one fs call, turning any failure into a WorkspaceError for `syscall` on `path`. */
export async function withWorkspaceError<T>(
  syscall: string,
  path: string,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw workspaceErrorFrom(error, syscall, path);
  }
}
