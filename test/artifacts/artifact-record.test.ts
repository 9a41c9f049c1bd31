import { describe, expect, it } from 'vitest';
import { artifactIdOf, artifactRecordSchema } from '../../src/artifacts/artifact-record.js';
import type { ArtifactIdInput } from '../../src/artifacts/artifact-record.js';
import { parseNodeId, parseRunId } from '../../src/project/index.js';

const HASH = `sha256:${'a'.repeat(64)}`;

const valid = {
  artifactId: 'art-3f9c0a1b2c4d',
  runId: parseRunId('run-001'),
  taskId: parseNodeId('implement-api'),
  agentId: 'builder-01',
  type: 'file',
  path: 'workspace/src/ApiController.cs',
  contentHash: HASH,
  createdAt: '2026-02-24T10:30:00.000Z',
  metadata: {
    language: 'csharp',
    bytes: 1834,
    linesAdded: 45,
    linesRemoved: 0,
    previous: 'art-0123456789ab',
    source: 'ingest',
  },
} as const;

type Overrides = Record<string, unknown>;
const withField = (overrides: Overrides): Record<string, unknown> => ({ ...valid, ...overrides });
const withMetadata = (overrides: Overrides): Record<string, unknown> => ({
  ...valid,
  metadata: { ...valid.metadata, ...overrides },
});
const requiredMetadata = {
  bytes: valid.metadata.bytes,
  linesAdded: valid.metadata.linesAdded,
  linesRemoved: valid.metadata.linesRemoved,
  source: valid.metadata.source,
};

describe('artifactRecordSchema', () => {
  const accepted: readonly (readonly [name: string, record: unknown])[] = [
    ['the spec example', valid],
    ['a record without optional metadata', { ...valid, metadata: requiredMetadata }],
    ...(['file', 'design', 'message', 'trace'] as const).map(
      (type) => [`type ${type}`, withField({ type })] as const,
    ),
    ...(['ingest', 'register', 'submit', 'runtime'] as const).map(
      (source) => [`source ${source}`, withMetadata({ source })] as const,
    ),
    ['zero bytes and zero line changes', withMetadata({ bytes: 0, linesAdded: 0, linesRemoved: 0 })],
  ];

  it.each(accepted)('accepts %s', (_name, record) => {
    expect(artifactRecordSchema.safeParse(record).success).toBe(true);
  });

  const rejected: readonly (readonly [name: string, record: unknown, path: string])[] = [
    ['an artifactId without the art- prefix', withField({ artifactId: '3f9c0a1b2c4d' }), 'artifactId'],
    ['an artifactId with 11 hex digits', withField({ artifactId: 'art-3f9c0a1b2c4' }), 'artifactId'],
    ['an artifactId with uppercase hex', withField({ artifactId: 'art-3F9C0A1B2C4D' }), 'artifactId'],
    ['a runId with a slash', withField({ runId: 'run/001' }), 'runId'],
    ['a runId starting with a dot', withField({ runId: '.run' }), 'runId'],
    ['an empty taskId', withField({ taskId: '' }), 'taskId'],
    ['an empty agentId', withField({ agentId: '' }), 'agentId'],
    ['an unknown type', withField({ type: 'image' }), 'type'],
    ['an empty path', withField({ path: '' }), 'path'],
    ['a contentHash without prefix', withField({ contentHash: 'a'.repeat(64) }), 'contentHash'],
    [
      'a contentHash of the wrong length',
      withField({ contentHash: `sha256:${'a'.repeat(63)}` }),
      'contentHash',
    ],
    [
      'a contentHash with another algorithm',
      withField({ contentHash: `md5:${'a'.repeat(64)}` }),
      'contentHash',
    ],
    ['a createdAt that is not ISO', withField({ createdAt: '24/02/2026' }), 'createdAt'],
    ['an empty language', withMetadata({ language: '' }), 'metadata.language'],
    ['negative bytes', withMetadata({ bytes: -1 }), 'metadata.bytes'],
    ['fractional linesAdded', withMetadata({ linesAdded: 1.5 }), 'metadata.linesAdded'],
    ['negative linesRemoved', withMetadata({ linesRemoved: -2 }), 'metadata.linesRemoved'],
    ['a previous that is not an artifact id', withMetadata({ previous: 'v1' }), 'metadata.previous'],
    ['an unknown source', withMetadata({ source: 'cli' }), 'metadata.source'],
    [
      'a missing source',
      { ...valid, metadata: { ...requiredMetadata, source: undefined } },
      'metadata.source',
    ],
    ['an unknown top-level field', withField({ extra: 1 }), ''],
    ['an unknown metadata field', withMetadata({ extra: 1 }), 'metadata'],
    ['a missing metadata', { ...valid, metadata: undefined }, 'metadata'],
  ];

  it.each(rejected)('rejects %s', (_name, record, path) => {
    const result = artifactRecordSchema.safeParse(record);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => issue.path.join('.'))).toContain(path);
  });
});

describe('artifactIdOf', () => {
  const input: ArtifactIdInput = {
    runId: parseRunId('run-001'),
    taskId: parseNodeId('implement-api'),
    path: 'workspace/src/a.ts',
    contentHash: HASH,
  };

  it('derives art- and 12 hex digits', () => {
    expect(artifactIdOf(input)).toMatch(/^art-[0-9a-f]{12}$/);
  });

  it('derives the same id for the same content at the same place', () => {
    expect(artifactIdOf({ ...input })).toBe(artifactIdOf(input));
  });

  it.each<keyof ArtifactIdInput>(['runId', 'taskId', 'path', 'contentHash'])(
    'changes when %s changes',
    (key) => {
      const changed = key === 'contentHash' ? `sha256:${'b'.repeat(64)}` : `${input[key]}x`;
      expect(artifactIdOf({ ...input, [key]: changed })).not.toBe(artifactIdOf(input));
    },
  );

  it('does not collide when text moves between fields', () => {
    const a = artifactIdOf({ ...input, runId: parseRunId('run'), taskId: parseNodeId('a-b') });
    const b = artifactIdOf({ ...input, runId: parseRunId('run-a'), taskId: parseNodeId('b') });
    expect(a).not.toBe(b);
  });

  it('is accepted by the record schema', () => {
    expect(artifactRecordSchema.safeParse({ ...valid, artifactId: artifactIdOf(input) }).success).toBe(true);
  });
});
