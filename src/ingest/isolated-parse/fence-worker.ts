// The entry of the fence parse worker (started by parse-fences-isolated.ts): it parses each document it is
// sent and answers with the scan; its parent terminates it when a document overruns its deadline.
import { parentPort } from 'node:worker_threads';
import { parseFences } from '../../fence/index.js';
import type { FenceParseAnswer, FenceParseRequest } from './fence-parse-message.js';

const port = parentPort;
if (port === null) throw new Error('fence-worker.js runs only as a worker thread');

port.on('message', (request: FenceParseRequest) => {
  let answer: FenceParseAnswer;
  try {
    answer = {
      id: request.id,
      scan: parseFences(request.text, {
        ...(request.all ? { all: true } : {}),
        ...(request.parser === undefined ? {} : { parser: request.parser }),
      }),
    };
  } catch (error) {
    // An unexpected throw stays the parent's error, as it would be in-process; the worker lives on.
    answer = {
      id: request.id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    };
  }
  port.postMessage(answer);
});
// Sent once the imports above have loaded: the parent starts a document's deadline only from here.
port.postMessage({ ready: true } satisfies FenceParseAnswer);
