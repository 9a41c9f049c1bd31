import type { ArtifactRecord } from '../artifact-record.js';

/** Sorts records oldest first by `createdAt`; equal times keep their order (Array.prototype.sort is stable). */
export function sortByTime(records: readonly ArtifactRecord[]): ArtifactRecord[] {
  return [...records].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
}
