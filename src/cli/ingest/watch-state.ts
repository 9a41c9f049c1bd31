import { z } from 'zod';
import { describeError, watchStatePath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import { openProjectStore } from '../../store/index.js';
import { UsageError } from '../usage-error.js';

const watchStateSchema = z
  .object({
    version: z.literal(1),
    run_id: z.string(),
    documents: z.record(
      z.string(),
      z.object({ sha256: z.string().regex(/^[0-9a-f]{64}$/), node_id: z.string() }).strict(),
    ),
  })
  .strict();

/** What `watch` last ingested of one document: its content's sha256 and the node id it was ingested as. */
export interface WatchedDocument {
  readonly sha256: string;
  readonly nodeId: string;
}

/** The state of one run's `watch`, `.agent/watch/<run_id>.json`: doc path -> the last content version ingested. */
export interface WatchState {
  get(docPath: string): WatchedDocument | undefined;
  /** The document already holding `nodeId`, other than `docPath`, if any: two paths may derive the same id. */
  ownerOf(nodeId: string, docPath: string): string | undefined;
  /** Records `docPath`'s ingested version and writes the state file atomically (temp file and rename). */
  remember(docPath: string, document: WatchedDocument): Promise<void>;
}

/**
 * Reads the watch state of `runId` (empty when there is none yet); a file that is not a watch state is a usage
 * error naming it, since ingesting again everything it lists would rewrite their manifests.
 */
export async function openWatchState(
  projectDir: string,
  runId: RunId,
  durability: 'fsync' | 'none',
): Promise<WatchState> {
  const store = openProjectStore(projectDir);
  const key = watchStatePath(runId);
  const documents = new Map<string, WatchedDocument>();
  const text = await store.readText(key);
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw unreadable(key, describeError(error));
    }
    const checked = watchStateSchema.safeParse(parsed);
    if (!checked.success || checked.data.run_id !== runId) {
      throw unreadable(key, checked.success ? `it names run ${checked.data.run_id}` : checked.error.message);
    }
    for (const [docPath, entry] of Object.entries(checked.data.documents)) {
      documents.set(docPath, { sha256: entry.sha256, nodeId: entry.node_id });
    }
  }
  return {
    get: (docPath) => documents.get(docPath),
    ownerOf: (nodeId, docPath) =>
      [...documents].find(([other, entry]) => other !== docPath && entry.nodeId === nodeId)?.[0],
    remember: async (docPath, document) => {
      documents.set(docPath, document);
      const entries = Object.fromEntries(
        [...documents]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([path, entry]) => [path, { sha256: entry.sha256, node_id: entry.nodeId }]),
      );
      const json = { version: 1, run_id: runId, documents: entries };
      await store.replace(key, `${JSON.stringify(json, null, 2)}\n`, { durability });
    },
  };
}

function unreadable(key: string, why: string): UsageError {
  return new UsageError(
    `${key} is not a watch state file (${why}); remove it to ingest every document of the run again, or pass another --run-id`,
    'watch',
  );
}
