export {
  ObjectPrestore,
  objectPrestoreFor,
  PRESTORE_PENDING_BYTES,
  PRESTORE_START_BYTES,
  PRESTORE_START_FILES,
} from './object-prestore.js';
export { ObjectWriterThread, objectWriterThread } from './object-writer-thread.js';
export type { PlaceAnswer, PlaceRequest } from './object-writer-message.js';
export type { BlockPlacer, ObjectWriter, ObjectWriterThreadOptions } from './object-writer-thread.js';
