import { parentPort } from 'node:worker_threads';
import type { DeadlineWorkerAnswer, DeadlineWorkerRequest } from './deadline-worker-message.js';

/**
 * Serves a {@link DeadlineWorker} from inside its worker thread: answers each request with `handle`'s result
 * (annotate its parameter and return as the parent's request and answer types), in arrival order, and says it
 * is ready once the calling entry module has loaded.
 */
export function serveDeadlineWorker(handle: (request: never) => unknown): void {
  const port = parentPort;
  if (port === null) throw new Error('a deadline worker entry runs only as a worker thread');
  port.on('message', ({ id, request }: DeadlineWorkerRequest<never>) => {
    let answer: DeadlineWorkerAnswer<unknown>;
    try {
      answer = { id, answer: handle(request) };
    } catch (error) {
      // An unexpected throw stays the parent's error, as it would be in-process; the worker lives on.
      answer = { id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
    }
    port.postMessage(answer);
  });
  // Sent once the entry's imports have loaded: the parent starts a request's deadline only from here.
  port.postMessage({ ready: true } satisfies DeadlineWorkerAnswer<unknown>);
}
