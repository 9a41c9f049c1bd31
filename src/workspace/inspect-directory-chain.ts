import path from 'node:path';
import { lstatOrMissing } from './lstat-or-missing.js';

/** Why a chain of folders cannot be used: where, and what is there instead of a real directory. */
export interface DirectoryChainProblem {
  readonly kind: 'missing' | 'symlink' | 'not_a_directory';
  /** The first unusable component, relative to the base (forward slashes). */
  readonly at: string;
}

/**
 * Checks that every component of `relative` below `base` is a real directory, judged with lstat (a symlink on
 * the way is refused, never followed); the first problem, or undefined when the chain is usable.
 */
export async function inspectDirectoryChain(
  base: string,
  relative: string,
): Promise<DirectoryChainProblem | undefined> {
  const components = relative.split('/').filter((component) => component !== '');
  for (let depth = 1; depth <= components.length; depth += 1) {
    const at = components.slice(0, depth).join('/');
    const info = await lstatOrMissing(path.join(base, at));
    if (info === undefined) return { kind: 'missing', at };
    if (info.isSymbolicLink()) return { kind: 'symlink', at };
    if (!info.isDirectory()) return { kind: 'not_a_directory', at };
  }
  return undefined;
}
