import type { ProjectSnapshot } from './project-snapshot-schema.js';

/** What the agent did to the tree during a step beside what it registered (spec "Declared versus observed"). */
export interface Reconciliation {
  /** Files created, modified or deleted during the step that were not registered, in code-unit order. */
  readonly unregistered: readonly string[];
  /** Registered paths that did not change during the step or no longer exist, in code-unit order. */
  readonly phantom: readonly string[];
  /** Every observed change, by kind, each list in code-unit order. */
  readonly changes: {
    readonly created: readonly string[];
    readonly modified: readonly string[];
    readonly deleted: readonly string[];
  };
}

/**
 * Compares the snapshots taken when a step started and when it ended with the paths registered during the step
 * (project-relative); a file is modified when its hash differs, so a touch that keeps the bytes is no change.
 */
export function reconcile(
  before: ProjectSnapshot,
  after: ProjectSnapshot,
  registered: readonly string[],
): Reconciliation {
  const created: string[] = [];
  const modified: string[] = [];
  const deleted: string[] = [];
  for (const [file, entry] of Object.entries(after.files)) {
    const earlier = before.files[file];
    if (earlier === undefined) created.push(file);
    else if (earlier.sha256 !== entry.sha256 || earlier.symlink !== entry.symlink) modified.push(file);
  }
  for (const file of Object.keys(before.files)) {
    if (!Object.hasOwn(after.files, file)) deleted.push(file);
  }
  const claimed = new Set(registered);
  const changed = new Set([...created, ...modified, ...deleted]);
  const unregistered = [...changed].filter((file) => !claimed.has(file));
  const phantom = [...claimed].filter((file) => !changed.has(file) || !Object.hasOwn(after.files, file));
  return {
    unregistered: unregistered.sort(compareCodeUnits),
    phantom: phantom.sort(compareCodeUnits),
    changes: {
      created: created.sort(compareCodeUnits),
      modified: modified.sort(compareCodeUnits),
      deleted: deleted.sort(compareCodeUnits),
    },
  };
}

/**
 * The unregistered paths an agent can still register: deletions are reported but cannot be registered (a
 * registered path must be an existing file), so `require_registration` blocks only on these.
 */
export function pathsToRegister(reconciliation: Reconciliation): string[] {
  const deleted = new Set(reconciliation.changes.deleted);
  return reconciliation.unregistered.filter((file) => !deleted.has(file));
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
