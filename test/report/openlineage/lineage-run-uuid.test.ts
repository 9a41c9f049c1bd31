import { describe, expect, it } from 'vitest';
import {
  LINEAGE_UUID_NAMESPACE,
  lineageRunUuid,
  uuidV5,
} from '../../../src/report/openlineage/lineage-run-uuid.js';

describe('uuidV5', () => {
  it.each([
    // RFC 9562 appendix A.4's example, then our namespace from the URL namespace.
    ['6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'www.example.com', '2ed6657d-e927-568b-95e1-2665a8aea6a2'],
    [
      '6ba7b811-9dad-11d1-80b4-00c04fd430c8',
      'https://github.com/artifact-ingest/artifact-ingest/docs/openlineage.md#run-ids',
      LINEAGE_UUID_NAMESPACE,
    ],
  ])('derives uuidv5(%s, %s) = %s', (namespace, name, expected) => {
    expect(uuidV5(namespace, name)).toBe(expected);
  });
});

describe('lineageRunUuid', () => {
  it('is the same on every call for the same namespace, run and step', () => {
    expect(lineageRunUuid('ns', 'run-1', 'plan')).toBe(lineageRunUuid('ns', 'run-1', 'plan'));
  });

  it('differs by namespace, run, step key and between the run and its steps', () => {
    const ids = new Set([
      lineageRunUuid('ns', 'run-1', 'plan'),
      lineageRunUuid('ns2', 'run-1', 'plan'),
      lineageRunUuid('ns', 'run-2', 'plan'),
      lineageRunUuid('ns', 'run-1', 'plan#2'),
      lineageRunUuid('ns', 'run-1', null),
      lineageRunUuid('ns', 'run-1', ''),
    ]);
    expect(ids.size).toBe(6);
  });

  it('keeps parts apart that would join to the same text', () => {
    expect(lineageRunUuid('a', 'b:c', 'd')).not.toBe(lineageRunUuid('a:b', 'c', 'd'));
  });

  it('is a version 5, RFC variant UUID', () => {
    expect(lineageRunUuid('ns', 'r', 's')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});
