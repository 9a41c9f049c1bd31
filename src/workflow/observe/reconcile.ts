import type { ProjectSnapshot } from './project-snapshot-schema.js';
import { snapshotKey } from './snapshot-key.js';

/**
 * What the agent did to the tree during a step beside what it registered (spec "Declared versus observed"); a
 * secret-shaped path appears as its snapshot key (`[REDACTED]:sha256:...`, decision D84), never verbatim.
 */
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
  // Snapshots are keyed by snapshotKey; a registered path is its own key unless it is secret-shaped.
  const claimed = new Map(registered.map((file) => [snapshotKey(file), file]));
  const changed = new Set([...created, ...modified, ...deleted]);
  const unregistered = [...changed].filter((key) => !claimed.has(key));
  const phantom = [...claimed]
    .filter(([key]) => !changed.has(key) || !Object.hasOwn(after.files, key))
    .map(([, file]) => file);
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
