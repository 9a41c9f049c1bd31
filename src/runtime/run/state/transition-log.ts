import { describeError, runTransitionsPath } from '../../../project/index.js';
import type { RunId } from '../../../project/index.js';
import type { LineAppender, ProjectStore } from '../../../store/index.js';
import { transitionLogHeader } from './run-transitions.js';

/** A run's open transitions.jsonl: lines appended in call order, each durable when its promise resolves. */
export interface TransitionLog {
  /** Appends one line (with its newline); resolves once it is on disk (fdatasync). */
  append(line: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a run's transition log over state.json bytes hashing to `baseSha256`: the header is written
 * atomically through the store (replacing the previous log, whose lines that state.json now holds), then the
 * file is opened for appends through the store's confined walk (a symlink swapped in is refused). Lines appended
 * while an fdatasync is under way share the next one.
 */
export async function openTransitionLog(
  store: ProjectStore,
  runId: RunId,
  baseSha256: string,
): Promise<TransitionLog> {
  const relative = runTransitionsPath(runId);
  await store.replace(relative, transitionLogHeader(baseSha256), { durability: 'fsync' });
  return groupCommitted(await store.openAppender(relative));
}

function groupCommitted(appender: LineAppender): TransitionLog {
  let waiting: { readonly line: string; readonly settle: (error?: unknown) => void }[] = [];
  let flushing: Promise<void> | undefined;

  const flush = async (): Promise<void> => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        // One write of whole lines, so a crash tears at most the last line of the batch.
        appender.write(batch.map((entry) => entry.line).join(''));
        await appender.sync();
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
      await appender.close();
    },
  };
}
