/**
 * The counts of the hostile-document scenario, each a pure look at how a child ended or what it left: crashes,
 * hangs, oversized manifests and event logs.
 */

/** How a child (or a server's answer to one call) ended, as the counts see it. */
export type ChildVerdict = 'ok' | 'crash' | 'hang';

/**
 * A CLI child's verdict: `hang` when the harness killed it at its time cap; `crash` when a signal ended it (an
 * OOM aborts) or its exit code is not one the design gives (`designed`); otherwise `ok`.
 */
export function judgeCliExit(
  exit: { readonly code: number | null; readonly signal: string | null; readonly capped: boolean },
  designed: readonly number[],
): ChildVerdict {
  if (exit.capped) return 'hang';
  if (exit.signal !== null || exit.code === null || !designed.includes(exit.code)) return 'crash';
  return 'ok';
}

/** A server's verdict on one call: `hang` without an answer within the cap, `crash` when it died before answering. */
export function judgeCallOutcome(kind: 'result' | 'died' | 'capped'): ChildVerdict {
  return kind === 'capped' ? 'hang' : kind === 'died' ? 'crash' : 'ok';
}

/** The number of entries (`artifacts`) of a manifest's JSON; undefined when it is missing or unreadable. */
export function manifestEntries(manifestText: string | undefined): number | undefined {
  if (manifestText === undefined) return undefined;
  try {
    const manifest = JSON.parse(manifestText) as { artifacts?: unknown };
    return Array.isArray(manifest.artifacts) ? manifest.artifacts.length : undefined;
  } catch {
    return undefined;
  }
}

/** Lines of an events.jsonl text about one node (its `node_id`): what ingesting one document appended. */
export function countNodeEventLines(eventsText: string, nodeId: string): number {
  const needle = `"node_id":${JSON.stringify(nodeId)}`;
  return eventsText.split('\n').filter((line) => line.includes(needle)).length;
}

/** Event lines one document may append beyond `max_blocks`: started, summary, an error or two, a few records. */
export const EVENT_LINES_ABOVE_MAX_BLOCKS = 10;

/**
 * Oversized results of one document: 1 for a manifest of more than `maxBlocks + 1` entries (every candidate
 * past the limit listed instead of one entry for the rest), 1 for more than `maxBlocks +`
 * {@link EVENT_LINES_ABOVE_MAX_BLOCKS} event lines of its node.
 */
export function countOversized(
  manifestText: string | undefined,
  eventsText: string,
  nodeId: string,
  maxBlocks: number,
): number {
  const entries = manifestEntries(manifestText) ?? 0;
  const lines = countNodeEventLines(eventsText, nodeId);
  return (entries > maxBlocks + 1 ? 1 : 0) + (lines > maxBlocks + EVENT_LINES_ABOVE_MAX_BLOCKS ? 1 : 0);
}
