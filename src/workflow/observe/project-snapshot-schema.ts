import { z } from 'zod';

/** One file of a snapshot: size and mtime from lstat, and the sha256 hex of its bytes (of its target for a symlink). */
export const snapshotEntrySchema = z
  .object({
    size: z.number().int().nonnegative(),
    mtime_ms: z.number().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    /** Present and true for a symbolic link: it is recorded, never followed, and its hash is of the link text. */
    symlink: z.literal(true).exactOptional(),
  })
  .strict();

/**
 * A snapshot of the project tree (version 1), as stored in `.agent/runs/<run_id>/snapshots/`: every file not
 * excluded, keyed by its project-relative POSIX path (`snapshotKey`: a secret-shaped path by its digest), keys in
 * code-unit order.
 */
export const projectSnapshotSchema = z
  .object({
    version: z.literal(1),
    taken_at: z.iso.datetime(),
    files: z.record(z.string().min(1), snapshotEntrySchema),
  })
  .strict();

/** One file of a {@link ProjectSnapshot}. */
export type SnapshotEntry = z.output<typeof snapshotEntrySchema>;
/** The project tree at one moment: what `snapshotProject` returns and the run folder stores. */
export type ProjectSnapshot = z.output<typeof projectSnapshotSchema>;
