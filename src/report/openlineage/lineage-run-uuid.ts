import { createHash } from 'node:crypto';

/**
 * Our UUID namespace: uuidv5(URL namespace, 'https://github.com/artifact-ingest/artifact-ingest/docs/openlineage.md#run-ids'),
 * fixed so the same run exports the same UUIDs on every machine and in every version.
 */
export const LINEAGE_UUID_NAMESPACE = '7b627a2d-1878-56bd-a84e-da13f3820b52';

/**
 * The OpenLineage runId of a run (`stepKey` null) or of one of its steps: a name-based UUID v5 (RFC 9562 5.5) of
 * the namespace, our run id and the step key, so exporting a run again updates the same runs in Marquez.
 */
export function lineageRunUuid(namespace: string, runId: string, stepKey: string | null): string {
  // A JSON array keeps the parts apart whatever characters they hold.
  return uuidV5(LINEAGE_UUID_NAMESPACE, JSON.stringify([namespace, runId, stepKey]));
}

/** RFC 9562 5.5: SHA-1 of the namespace's 16 bytes and the name, with the version and variant bits set. */
export function uuidV5(namespace: string, name: string): string {
  const bytes = createHash('sha1')
    .update(Buffer.from(namespace.replaceAll('-', ''), 'hex'))
    .update(name, 'utf8')
    .digest()
    .subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x50;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
