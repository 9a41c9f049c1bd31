import { readOpenedConfigText } from '../../config/index.js';
import { NONBLOCKING_NOFOLLOW_READ, isOpenedAt, quickFs } from '../../workspace/index.js';
import type { QuickHandle } from '../../workspace/index.js';
import type { ProjectWorkflowFile } from './resolve-workflow-reference.js';

/**
 * Reads a workflow file the resolver found inside the project, as the config reader does (O_NONBLOCK, fstat
 * before any read, at most 1 MiB, UTF-8), after checking that the descriptor it opened is the file at
 * `realPath`: undefined when the file is gone or something was swapped onto its path since it was resolved
 * (the caller refuses it as it refuses anything outside the project). Problems of the file itself are the
 * config reader's `ConfigError`s, naming `shownAs`.
 */
export async function readProjectWorkflow(file: ProjectWorkflowFile): Promise<string | undefined> {
  let handle: QuickHandle;
  try {
    // The small calls on the calling thread, as the writer's (D81).
    // O_NOFOLLOW: the real path has no symlink as its last component; one planted there since is refused (ELOOP).
    handle = await quickFs.open(file.realPath, NONBLOCKING_NOFOLLOW_READ);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'ELOOP') return undefined;
    throw error;
  }
  try {
    if (!(await isOpenedAt(handle, file.realPath))) return undefined;
    return await readOpenedConfigText(handle, file.shownAs);
  } finally {
    await handle.close();
  }
}
