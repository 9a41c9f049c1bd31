import type { RunCopy } from '../../artifacts/index.js';

/** A copied run as `push --json` and `pull --json` print it. */
export function copySummary(copy: RunCopy): {
  run_id: string;
  records: number;
  objects: number;
  files: number;
  bytes: number;
} {
  return {
    run_id: copy.runId,
    records: copy.recordsCopied,
    objects: copy.objectsStored,
    files: copy.filesWritten,
    bytes: copy.bytesWritten,
  };
}
