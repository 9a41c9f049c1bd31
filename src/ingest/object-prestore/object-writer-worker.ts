// The entry of the object writer thread (started by object-writer-thread.ts): it stores each batch of objects
// it is sent in the project's files object store, one batch after another, and answers when the batch is done.
import { parentPort } from 'node:worker_threads';
import { describeError } from '../../project/index.js';
import { openObjectStore } from '../../store/index.js';
import type { ObjectWriteAnswer, ObjectWriteRequest } from './object-writer-message.js';

const port = parentPort;
if (port === null) throw new Error('the object writer entry runs only as a worker thread');

/** Stores one batch; the store is opened for it and closed after, so no folder of a removed project stays open. */
async function store(request: ObjectWriteRequest): Promise<ObjectWriteAnswer> {
  try {
    const contents: Uint8Array[] = [];
    let at = 0;
    for (const length of request.lengths) {
      contents.push(request.bytes.subarray(at, at + length));
      at += length;
    }
    const objects = await openObjectStore(request.projectDir, { durability: request.durability });
    try {
      await objects.putAll(contents);
    } finally {
      await objects.close();
    }
    return { id: request.id, stored: contents.length };
  } catch (error) {
    return { id: request.id, error: describeError(error) };
  }
}

let done: Promise<void> = Promise.resolve();
port.on('message', (request: ObjectWriteRequest) => {
  done = done.then(async () => {
    port.postMessage(await store(request));
  });
});
// Sent once the entry's imports have loaded: until then the parent does not wait on this thread.
port.postMessage({ ready: true } satisfies ObjectWriteAnswer);
