import path from 'node:path';
import type FastGlob from 'fast-glob';
import { lazyModule } from '../../project/index.js';
import { lstatOrMissing } from '../../workspace/index.js';

/** fast-glob loads only for the scans. */
const fastGlob = lazyModule<typeof FastGlob>('fast-glob');

/** A document's file as last seen: inode, size and times; any write or rename into place changes it. */
export type FileSignature = string;

/** The markdown documents under a folder, each handed out once it has settled (no change for `quietMs`). */
export interface SettleTracker {
  /** A change was seen at `docPath` (project-relative, `/`-separated): its quiet period starts again. */
  mark(docPath: string): void;
  /** Lists the folder and marks every candidate whose file differs from the one last handled. */
  scan(): Promise<void>;
  /** The documents that have settled since the last call, each with the signature it settled at. */
  settled(): Promise<{ docPath: string; signature: FileSignature }[]>;
  /** `docPath` was handled as it was at `signature`: a scan passes over it until it changes. */
  handled(docPath: string, signature: FileSignature): void;
  /** How many documents are waiting to settle. */
  pending(): number;
  /** The signature of `docPath` now, or undefined when it is not a regular file. */
  signatureOf(docPath: string): Promise<FileSignature | undefined>;
}

/** Whether a project-relative path is a document `watch` ingests: `*.md`, no segment starting with a dot. */
export function isWatchedDocument(docPath: string): boolean {
  // Writers stage a document in a temp file (`.a.md.tmp`, `a.md.tmp`) and rename it into place: neither is one.
  return docPath.endsWith('.md') && !docPath.split('/').some((segment) => segment.startsWith('.'));
}

/** How close in time a staged file's event and a document's must be for the document to count as renamed into place. */
export const RENAME_WINDOW_MS = 50;

/**
 * Tracks the documents under `dir` (project-relative): a document has settled when its file (inode, size,
 * mtime, ctime) has not changed for `quietMs`, or at once when it was renamed into place (an event for it came
 * with one for a staged name of the same folder, a temp file, that is gone: the rename's two ends); one found by
 * a scan counts its quiet time from its mtime, so a restart does not wait for documents written long before it.
 */
export function trackSettling(
  projectDir: string,
  dir: string,
  quietMs: number,
  now: () => number = Date.now,
): SettleTracker {
  const waiting = new Map<string, { signature: FileSignature | undefined; since: number; event?: number }>();
  const done = new Map<string, FileSignature>();
  /** When an event last came for each staged (not watched) name: a temp file being written or renamed away. */
  const staged = new Map<string, number>();

  /** Whether an event for a staged sibling of `docPath` came close to `at` and that sibling is gone now. */
  const renamedInto = async (docPath: string, at: number): Promise<boolean> => {
    const folder = path.posix.dirname(docPath);
    for (const [name, seen] of staged) {
      if (path.posix.dirname(name) !== folder || Math.abs(seen - at) > RENAME_WINDOW_MS) continue;
      if ((await lstatOrMissing(path.join(projectDir, name))) === undefined) return true;
    }
    return false;
  };

  const lstat = async (docPath: string) => {
    const info = await lstatOrMissing(path.join(projectDir, docPath));
    return info?.isFile() === true ? info : undefined;
  };
  const signatureOf = async (docPath: string): Promise<FileSignature | undefined> => {
    const info = await lstat(docPath);
    return info === undefined ? undefined : signatureOfFile(info);
  };

  return {
    mark: (docPath) => {
      const at = now();
      if (isWatchedDocument(docPath)) waiting.set(docPath, { signature: undefined, since: at, event: at });
      else staged.set(docPath, at);
    },
    scan: async () => {
      const found = await fastGlob()(`${fastGlob().escapePath(dir)}/**/*.md`, {
        cwd: projectDir,
        onlyFiles: true,
        followSymbolicLinks: false,
        dot: false,
      });
      for (const docPath of found.sort()) {
        if (!isWatchedDocument(docPath) || waiting.has(docPath)) continue;
        const info = await lstat(docPath);
        if (info === undefined) continue;
        const signature = signatureOfFile(info);
        if (done.get(docPath) === signature) continue;
        waiting.set(docPath, { signature, since: Math.min(now(), info.mtimeMs) });
      }
    },
    settled: async () => {
      const ready: { docPath: string; signature: FileSignature }[] = [];
      for (const [name, seen] of staged) if (now() - seen > 10 * RENAME_WINDOW_MS) staged.delete(name);
      for (const [docPath, entry] of [...waiting]) {
        const info = await lstat(docPath);
        // Gone (renamed away, deleted) or no longer a regular file: nothing to ingest until it comes back.
        if (info === undefined) {
          waiting.delete(docPath);
          continue;
        }
        const signature = signatureOfFile(info);
        // Renamed into place: the file is whole already (a rename is atomic), so it need not be quiet first.
        // (The file unchanged since its event: the rename's other end may be reported a moment after this one.)
        const renamed =
          (entry.signature === undefined || entry.signature === signature) &&
          entry.event !== undefined &&
          (changedAfterWritten(info) || (await renamedInto(docPath, entry.event)));
        if (signature !== entry.signature && !renamed) {
          waiting.set(docPath, {
            signature,
            since: now(),
            ...(entry.signature === undefined && entry.event !== undefined ? { event: entry.event } : {}),
          });
          continue;
        }
        if (!renamed && now() - entry.since < quietMs) continue;
        waiting.delete(docPath);
        if (done.get(docPath) !== signature) ready.push({ docPath, signature });
      }
      return ready;
    },
    handled: (docPath, signature) => {
      done.set(docPath, signature);
    },
    pending: () => waiting.size,
    signatureOf,
  };
}

/**
 * Whether the file's inode changed after its content last did (ctime past mtime): a rename sets ctime alone, each
 * write sets both, so a document written in place, however slowly, never shows it. A rename in the same clock tick
 * as the last write does not show it either; the staged file's event may tell instead.
 */
function changedAfterWritten(info: FileTimes): boolean {
  return info.ctimeMs > info.mtimeMs;
}

function signatureOfFile(info: FileTimes & { readonly ino: number; readonly size: number }): FileSignature {
  return `${String(info.ino)}:${String(info.size)}:${String(info.mtimeMs)}:${String(info.ctimeMs)}`;
}

/** What lstat says of a file's times, in milliseconds. */
interface FileTimes {
  readonly mtimeMs: number;
  readonly ctimeMs: number;
}
