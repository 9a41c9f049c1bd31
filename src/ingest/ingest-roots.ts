import path from 'node:path';
import { WORKSPACE_DIR } from '../project/index.js';
import { openConfinedRoot } from '../workspace/index.js';
import type { ConfinedRoot, ConfinedRootOptions } from '../workspace/index.js';

/** The confined root an ingest writes block files through: workspace/ (the manifest goes to the project's store). */
export interface IngestRoots {
  /** The workspace/ root, for block files. */
  workspace(): Promise<ConfinedRoot>;
}

/** Roots opened on first use and shared by every ingest handed them, until their opener closes them. */
export interface SharedIngestRoots extends IngestRoots {
  /** Closes the roots these opened. */
  close(): Promise<void>;
}

/** How shared roots are opened. */
export interface IngestRootsOptions {
  /** A dry run never creates workspace/. */
  readonly dryRun?: boolean;
  /** Opens a root; `openConfinedRoot` unless a test counts the opens. */
  readonly open?: (rootPath: string, options: ConfinedRootOptions) => Promise<ConfinedRoot>;
}

/**
 * Makes the workspace root of one project, opened at most once (on first use, so an ingest that writes nothing
 * creates nothing) and shared by every ingest it is handed to; a failed open is retried on the next use.
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
  return {
    workspace: once(path.join(projectDir, WORKSPACE_DIR), { create: options.dryRun !== true }),
    async close() {
      const roots = await Promise.allSettled(opened.splice(0));
      await Promise.all(
        roots.map((root) => (root.status === 'fulfilled' ? root.value.close() : Promise.resolve())),
      );
    },
  };
}
