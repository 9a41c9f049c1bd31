import { execFileSync } from 'node:child_process';

/** A mount made for a test: `release` undoes it; `skip` says why none could be made (not root, no mount). */
export type TestMount =
  | { readonly kind: 'mounted'; readonly release: () => void }
  | { readonly kind: 'skipped'; readonly skip: string };

/** Whether mounts can be made here: only root may, and root ignores file permissions, so tests use mounts. */
export const CAN_MOUNT = process.getuid?.() === 0;

/** Makes `dir` read-only with a read-only bind mount of itself, as a read-only filesystem (EROFS) would be. */
export function mountReadOnly(dir: string): TestMount {
  return mountWith(dir, [
    ['--bind', dir, dir],
    ['-o', 'remount,ro,bind', dir],
  ]);
}

/** Mounts a tmpfs of `size` (such as `16k`) on `dir`, a disk that fills up (ENOSPC). */
export function mountSmallTmpfs(dir: string, size: string): TestMount {
  return mountWith(dir, [['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]]);
}

/** Grows a tmpfs mounted by {@link mountSmallTmpfs}, as freeing space would. */
export function growTmpfs(dir: string, size: string): void {
  execFileSync('mount', ['-o', `remount,size=${size}`, dir]);
}

function mountWith(dir: string, steps: readonly (readonly string[])[]): TestMount {
  if (!CAN_MOUNT)
    return { kind: 'skipped', skip: 'needs root to mount (root ignores permissions otherwise)' };
  let mounted = false;
  const release = (): void => {
    if (mounted) execFileSync('umount', [dir]);
    mounted = false;
  };
  try {
    for (const [index, step] of steps.entries()) {
      execFileSync('mount', [...step], { stdio: 'pipe' });
      if (index === 0) mounted = true;
    }
  } catch (error) {
    release();
    return {
      kind: 'skipped',
      skip: `mount failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  return { kind: 'mounted', release };
}
