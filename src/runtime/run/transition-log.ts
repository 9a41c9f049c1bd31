import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describeError, runTransitionsPath } from '../../project/index.js';
import type { RunId } from '../../project/index.js';
import type { ConfinedRoot } from '../../workspace/index.js';
import { transitionLogHeader } from './run-transitions.js';

/** A run's open transitions.jsonl: lines appended in call order, each durable when its promise resolves. */
export interface TransitionLog {
  /** Appends one line (with its newline); resolves once it is on disk (fdatasync). */
  append(line: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a run's transition log over state.json bytes hashing to `baseSha256`: the header is written
 * atomically through the confined writer (replacing the previous log, whose lines that state.json now holds),
 * then the file is opened for appends. Lines appended while an fdatasync is under way share the next one.
 */
export async function openTransitionLog(
  root: ConfinedRoot,
  projectDir: string,
  runId: RunId,
  baseSha256: string,
): Promise<TransitionLog> {
  const relative = runTransitionsPath(runId);
  const outcome = await root.write(relative, new TextEncoder().encode(transitionLogHeader(baseSha256)), {
    durability: 'fsync',
  });
  if (outcome.status === 'refused') throw new Error(`${outcome.code}: ${outcome.message}`);
  // O_NOFOLLOW: the confined writer just placed a regular file here; a symlink swapped in is refused.
  const handle = await open(
    path.join(projectDir, relative),
    constants.O_WRONLY | constants.O_APPEND | constants.O_NOFOLLOW,
  );
  return groupCommitted(handle);
}

function groupCommitted(handle: FileHandle): TransitionLog {
  let waiting: { readonly line: string; readonly settle: (error?: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;

  const flush = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        // One write of whole lines, so a crash tears at most the last line of the batch.
        await handle.write(batch.map((entry) => entry.line).join(''));
        await handle.datasync();
        for (const entry of batch) entry.settle();
      } catch (error) {
        for (const entry of batch) entry.settle(error);
      }
    }
    flushing = undefined;
  };

  return {
    append(line) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({
          line,
          settle: (error?: unknown) => {
            if (error === undefined) resolve();
            else reject(error instanceof Error ? error : new Error(describeError(error)));
          },
        });
        flushing ??= flush();
      });
    },
    async close() {
      await flushing;
      await handle.close();
    },
  };
}
