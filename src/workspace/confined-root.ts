import { constants } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { mkdir, open, readlink, realpath } from './quick-fs.js';
import type { QuickHandle } from './quick-fs.js';
import type { ConfinedWriteOptions } from './confined-write-options.js';
import type { DirectoryHandle, DirectoryWalk, RootAnchor, WalkOptions, WalkResult } from './walk/index.js';
import { openConfinedFile, openConfinedFolder } from './confined-folder.js';
import { filesystemRefusal } from './filesystem-refusal.js';
import { checkDeclaredPath } from './paths/index.js';
import { replaceFileAtomically, streamFileAtomically, appendLinesBelow } from './write/index.js';
import type { StreamedWriteOptions } from './write/index.js';
import { descriptorPath, walkByDescriptor, walkByLstat, shareDirectories } from './walk/index.js';
import { errnoOf } from './errno-of.js';
import { withWorkspaceError } from './workspace-error.js';
import type { StreamedWriteOutcome, WriteOutcome } from './write-outcome.js';
import { openStagingFolder } from './staging-folder.js';
import { removeStaleTempFiles, STALE_TEMP_AGE_MS } from './remove-stale-temp-files.js';
import type { ConfinedRoot, ConfinedRootOptions, Confinement } from './confined-root-types.js';

/** Opens `rootPath` as the trust anchor of confined writes. */
export async function openConfinedRoot(
  rootPath: string,
  options: ConfinedRootOptions = {},
): Promise<ConfinedRoot> {
  if (options.create === true) {
    await withWorkspaceError('mkdir', rootPath, () => makeDirectories(rootPath));
  }
  const realPath = await withWorkspaceError('realpath', rootPath, () => realpath(rootPath));
  const handle = await withWorkspaceError('open', realPath, () =>
    open(realPath, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW),
  );
  try {
    const confinement = await chooseConfinement(handle, realPath, options.confinement);
    return confinedRoot({ realPath, handle }, confinement);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * `mkdir -p`; Node's recursive mkdir reports ENOENT when a missing folder cannot be made for another reason
 * (EROFS, EACCES: it stats the folder after the failed mkdir), so on ENOENT each level is made in turn to
 * surface the real cause.
 */
async function makeDirectories(directory: string): Promise<void> {
  try {
    await mkdir(directory, { recursive: true });
    return;
  } catch (error) {
    if (errnoOf(error) !== 'ENOENT') throw error;
  }
  const levels: string[] = [];
  for (let at = resolve(directory); dirname(at) !== at; at = dirname(at)) levels.unshift(at);
  for (const level of levels) {
    try {
      await mkdir(level);
    } catch (error) {
      if (errnoOf(error) !== 'EEXIST') throw error;
    }
  }
}

async function chooseConfinement(
  handle: QuickHandle,
  realPath: string,
  requested: Confinement | undefined,
): Promise<Confinement> {
  if (requested === 'lstat-walk') return requested;
  const usable = await descriptorPathsWork(handle, realPath);
  if (requested === 'proc-fd' && !usable) {
    throw new Error(
      `confinement 'proc-fd' needs a Linux /proc/self/fd that resolves ${realPath}; use 'lstat-walk'`,
    );
  }
  return usable ? 'proc-fd' : 'lstat-walk';
}

/** Whether /proc/self/fd is mounted and names the root exactly as realpath(3) does. */
async function descriptorPathsWork(handle: QuickHandle, realPath: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  try {
    return (await readlink(descriptorPath(handle))) === realPath;
  } catch {
    return false;
  }
}

function confinedRoot(root: RootAnchor, confinement: Confinement): ConfinedRoot {
  const walk: DirectoryWalk = confinement === 'proc-fd' ? walkByDescriptor : walkByLstat;
  const readWalk = { walk, byPath: confinement === 'lstat-walk' };
  const inFlight = new Set<Promise<unknown>>();
  let closed = false;
  // Each directory is swept once per cutoff a caller names (once per root for the hour rule), so a run of
  // writes into one directory reads it once, not once per write.
  const swept = new Map<string, number | 'hour'>();
  const sweep = async (directory: DirectoryHandle, options: ConfinedWriteOptions): Promise<void> => {
    const key = options.staleTempBefore ?? 'hour';
    if (options.dryRun === true || swept.get(directory.relativePath) === key) return;
    swept.set(directory.relativePath, key);
    await removeStaleTempFiles(directory, options.staleTempBefore ?? Date.now() - STALE_TEMP_AGE_MS);
  };

  const walkFromRoot = (directories: readonly string[], options: WalkOptions): Promise<WalkResult> =>
    walk(root, directories, options);

  const writeOnce = async (
    declaredPath: string,
    bytes: Uint8Array,
    options: ConfinedWriteOptions,
    reach = walkFromRoot,
  ): Promise<WriteOutcome> => {
    const verdict = checkDeclaredPath(declaredPath);
    if (!verdict.ok) return { status: 'refused', code: verdict.code, message: verdict.message };
    const directories = verdict.path.split('/');
    const name = directories.pop() ?? verdict.path;
    const reached = await reach(directories, {
      create: options.dryRun !== true,
      onStep: options.onStep,
    });
    switch (reached.kind) {
      case 'missing':
        return { status: 'would_write', path: verdict.path };
      case 'refused':
        return filesystemRefusal(reached.code, reached.relativePath);
      case 'opened':
        try {
          await sweep(reached.directory, options);
          return await replaceFileAtomically({
            directory: reached.directory,
            name,
            path: verdict.path,
            bytes,
            options,
          });
        } finally {
          await reached.directory.close();
        }
    }
  };

  const streamOnce = async (
    declaredPath: string,
    chunks: AsyncIterable<Uint8Array>,
    options: StreamedWriteOptions,
  ): Promise<StreamedWriteOutcome> => {
    const verdict = checkDeclaredPath(declaredPath);
    if (!verdict.ok) return { status: 'refused', code: verdict.code, message: verdict.message };
    const directories = verdict.path.split('/');
    const name = directories.pop() ?? verdict.path;
    const reached = await walk(root, directories, { create: true, onStep: options.onStep });
    if (reached.kind === 'refused') return filesystemRefusal(reached.code, reached.relativePath);
    // A walk that creates what is missing only reports `missing` for a dry run, which a stream never is.
    if (reached.kind === 'missing') throw new Error(`ConfinedRoot.writeStream: ${verdict.path} not reached`);
    try {
      return await streamFileAtomically({
        directory: reached.directory,
        name,
        path: verdict.path,
        chunks,
        options,
      });
    } finally {
      await reached.directory.close();
    }
  };

  const track = async <T>(method: string, work: () => Promise<T>): Promise<T> => {
    // Misuse, not I/O: a closed root's descriptor number may already belong to another file.
    if (closed) throw new Error(`ConfinedRoot.${method} called after close()`);
    const pending = work();
    inFlight.add(pending);
    try {
      return await pending;
    } finally {
      inFlight.delete(pending);
    }
  };

  return {
    realPath: root.realPath,
    confinement,
    write: (declaredPath, bytes, options = {}) =>
      track('write', () => writeOnce(declaredPath, bytes, options)),
    writeStream: (declaredPath, chunks, options = {}) =>
      track('writeStream', () => streamOnce(declaredPath, chunks, options)),
    appendLines: (declaredPath, text, options = {}) =>
      track('appendLines', () => appendLinesBelow(root, walk, declaredPath, text, options)),
    openFile: (relativePath, options = {}) =>
      track('openFile', () => openConfinedFile(root, readWalk, relativePath, options)),
    openFolder: (relativePath, options = {}) =>
      track('openFolder', () => openConfinedFolder(root, readWalk, relativePath, options)),
    makeDirectory: (declaredPath) =>
      track('makeDirectory', async (): Promise<WriteOutcome> => {
        const verdict = checkDeclaredPath(declaredPath);
        if (!verdict.ok) return { status: 'refused', code: verdict.code, message: verdict.message };
        const reached = await walk(root, verdict.path.split('/'), { create: true, onStep: undefined });
        if (reached.kind === 'refused') return filesystemRefusal(reached.code, reached.relativePath);
        if (reached.kind === 'opened') await reached.directory.close();
        return { status: 'written', path: verdict.path };
      }),
    writeBatch: () => {
      const shared = shareDirectories(root, walk);
      return {
        write: (declaredPath, bytes, options = {}) =>
          track('write', async () => {
            const outcome = await writeOnce(declaredPath, bytes, options, (directories, walkOptions) =>
              shared.walk(directories, walkOptions),
            );
            if (outcome.status === 'written' && options.durability !== 'none') {
              shared.written(outcome.path.split('/').slice(0, -1).join('/'), outcome.path);
            }
            return outcome;
          }),
        finish: () => track('finish', () => shared.finish()),
      };
    },
    sweepTempFiles: (declaredPath, options = {}) =>
      track('sweepTempFiles', async () => {
        const verdict = checkDeclaredPath(declaredPath);
        if (!verdict.ok) return 0;
        const reached = await walk(root, verdict.path.split('/'), { create: false, onStep: undefined });
        if (reached.kind !== 'opened') return 0;
        try {
          return await removeStaleTempFiles(
            reached.directory,
            options.staleTempBefore ?? Date.now() - STALE_TEMP_AGE_MS,
          );
        } finally {
          await reached.directory.close();
        }
      }),
    stage: (targetDirectory) =>
      track('stage', () =>
        openStagingFolder(root, walk, targetDirectory, (anchor) => confinedRoot(anchor, confinement)),
      ),
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.allSettled(inFlight);
      await root.handle.close();
    },
  };
}
