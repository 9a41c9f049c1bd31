import { parentPort } from 'node:worker_threads';
import type { DeadlineWorkerAnswer, DeadlineWorkerRequest } from './deadline-worker-message.js';

/**
 * Serves a {@link DeadlineWorker} from inside its worker thread: answers each request with `handle`'s result, or
 * what its promise resolves to (annotate its parameter and return as the parent's request and answer types), one
 * request after another in arrival order (a request sent while a promise is pending waits for it), and says it is
 * ready once the calling entry module has loaded.
 */
export function serveDeadlineWorker(handle: (request: never) => unknown): void {
  const port = parentPort;
  if (port === null) throw new Error('a deadline worker entry runs only as a worker thread');
  // An unexpected throw (or rejection) stays the parent's error, as it would be in-process; the worker lives on.
  const failed = (id: number, error: unknown): DeadlineWorkerAnswer<unknown> => ({
    id,
    error: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  /** Answers one request; a promise (that never rejects) while its answer is pending. */
  const serve = ({ id, request }: DeadlineWorkerRequest<never>): Promise<void> | undefined => {
    let result: unknown;
    try {
      result = handle(request);
    } catch (error) {
      port.postMessage(failed(id, error));
      return undefined;
    }
    // A synchronous answer goes at once (the fence parse's); a promise's once it settles.
    if (!(result instanceof Promise)) {
      port.postMessage({ id, answer: result } satisfies DeadlineWorkerAnswer<unknown>);
      return undefined;
    }
    return result.then(
      (answer: unknown) => {
        port.postMessage({ id, answer } satisfies DeadlineWorkerAnswer<unknown>);
      },
      (error: unknown) => {
        port.postMessage(failed(id, error));
      },
    );
  };
  /** The request being answered, while its answer is a pending promise. */
  let busy: Promise<void> | undefined;
  const settle = (work: Promise<void>): void => {
    busy = work;
    void work.then(() => {
      if (busy === work) busy = undefined;
    });
  };
  port.on('message', (message: DeadlineWorkerRequest<never>) => {
    if (busy !== undefined) {
      settle(busy.then(() => serve(message)));
      return;
    }
    const serving = serve(message);
    if (serving !== undefined) settle(serving);
  });
  // Sent once the entry's imports have loaded: the parent starts a request's deadline only from here.
  port.postMessage({ ready: true } satisfies DeadlineWorkerAnswer<unknown>);
}
