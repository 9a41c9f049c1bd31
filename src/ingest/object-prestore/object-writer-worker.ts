// The entry of the object writer thread (started by object-writer-thread.ts): it stores each batch of objects
// it is sent in the project's files object store, one batch after another, and answers with how many it stored.
import { openObjectStore } from '../../store/index.js';
import { serveDeadlineWorker } from '../deadline-worker/index.js';
import type { ObjectWriteRequest } from './object-writer-message.js';

/** Stores one batch; the store is opened for it and closed after, so no folder of a removed project stays open. */
async function store(request: ObjectWriteRequest): Promise<number> {
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
  return contents.length;
}

serveDeadlineWorker(store);
