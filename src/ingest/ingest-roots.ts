import path from 'node:path';
import { WORKSPACE_DIR } from '../project/index.js';
import { openConfinedRoot } from '../workspace/index.js';
import type { ConfinedRoot, ConfinedRootOptions } from '../workspace/index.js';

/** The confined roots an ingest writes through: the project (manifests) and workspace/ (block files). */
export interface IngestRoots {
  /** The project root, for manifests; it is never created. */
  project(): Promise<ConfinedRoot>;
  /** The workspace/ root, for block files. */
  workspace(): Promise<ConfinedRoot>;
}

/** Roots opened on first use and shared by every ingest handed them, until their opener closes them. */
export interface SharedIngestRoots extends IngestRoots {
  /** Closes the roots these opened (never a project root that was handed in). */
  close(): Promise<void>;
}

/** How shared roots are opened. */
export interface IngestRootsOptions {
  /** An already open project root to use (its opener closes it), instead of opening one. */
  readonly project?: ConfinedRoot;
  /** A dry run never creates workspace/. */
  readonly dryRun?: boolean;
  /** Opens a root; `openConfinedRoot` unless a test counts the opens. */
  readonly open?: (rootPath: string, options: ConfinedRootOptions) => Promise<ConfinedRoot>;
}

/**
 * Makes the roots of one project, each opened at most once (on first use, so an ingest that writes nothing
 * creates nothing) and shared by every ingest they are handed to; a failed open is retried on the next use.
 */
export function openIngestRoots(projectDir: string, options: IngestRootsOptions = {}): SharedIngestRoots {
  const open = options.open ?? openConfinedRoot;
  const opened: Promise<ConfinedRoot>[] = [];
  const once = (rootPath: string, rootOptions: ConfinedRootOptions): (() => Promise<ConfinedRoot>) => {
    let pending: Promise<ConfinedRoot> | undefined;
    return () => {
      // Concurrent nodes share the one pending open; only a successful open is kept.
      if (pending === undefined) {
        const attempt = open(rootPath, rootOptions);
        pending = attempt;
        opened.push(attempt);
        attempt.catch(() => {
          if (pending === attempt) pending = undefined;
        });
      }
      return pending;
    };
  };
  const given = options.project;
  return {
    project: given === undefined ? once(projectDir, { create: false }) : () => Promise.resolve(given),
    workspace: once(path.join(projectDir, WORKSPACE_DIR), { create: options.dryRun !== true }),
    async close() {
      const roots = await Promise.allSettled(opened.splice(0));
      await Promise.all(
        roots.map((root) => (root.status === 'fulfilled' ? root.value.close() : Promise.resolve())),
      );
    },
  };
}
