import { inspectFileBelow } from '../../workspace/index.js';
import { contentHashOf } from '../../store/index.js';

/** What stands at a recorded workspace path now, compared with the content hash it should hold. */
export type WorkspaceFileState =
  | { readonly kind: 'same' }
  | { readonly kind: 'modified'; readonly contentHash: string }
  | { readonly kind: 'missing' }
  /** `where` is the first path (the file or one of its folders) that is not what it should be; `what` names it. */
  | { readonly kind: 'not_a_file'; readonly where: string; readonly what: string };

/**
 * Compares the live file at a project-relative `workspace/...` path with `contentHash`, never following a link
 * below `workspace/` and never writing ({@link inspectFileBelow}).
 */
export async function inspectWorkspaceFile(
  projectDir: string,
  path: string,
  contentHash: string,
): Promise<WorkspaceFileState> {
  const found = await inspectFileBelow(projectDir, path);
  if (found.kind !== 'file') return found;
  const actual = contentHashOf(found.bytes);
  return actual === contentHash ? { kind: 'same' } : { kind: 'modified', contentHash: actual };
}
