import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { artifactRecordJsonSchema, traceContentJsonSchema } from '../../src/artifacts/index.js';

async function published(name: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(`../../docs/${name}`, import.meta.url), 'utf8')) as unknown;
}

describe('published JSON Schemas of artifacts', () => {
  it('docs/artifact-record.schema.json matches the record schema (npm run fixtures:regen)', async () => {
    expect(await published('artifact-record.schema.json')).toEqual(artifactRecordJsonSchema());
  });

  it('docs/trace.schema.json matches the trace content schema (npm run fixtures:regen)', async () => {
    expect(await published('trace.schema.json')).toEqual(traceContentJsonSchema());
  });

  it('keeps the record closed: unknown fields are not allowed at either level', () => {
    const schema = artifactRecordJsonSchema() as {
      additionalProperties: boolean;
      properties: { metadata: { additionalProperties: boolean } };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.metadata.additionalProperties).toBe(false);
  });
});
