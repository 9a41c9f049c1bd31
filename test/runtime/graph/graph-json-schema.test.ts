import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { graphJsonSchema } from '../../../src/runtime/graph/graph-json-schema.js';
import { GRAPH_KEYS } from '../../../src/runtime/graph/graph-schema.js';

describe('graphJsonSchema', () => {
  it('matches docs/graph.schema.json (npm run fixtures:regen)', async () => {
    const published = JSON.parse(
      await readFile(new URL('../../../docs/graph.schema.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(graphJsonSchema());
  });

  it('describes the file as written: the YAML keys, closed, with the required ones', () => {
    const schema = graphJsonSchema() as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    const nodes = schema.properties.nodes as {
      items: { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
    };
    expect(Object.keys(schema.properties)).toEqual(GRAPH_KEYS['']);
    expect(Object.keys(nodes.items.properties)).toEqual(GRAPH_KEYS['nodes.*']);
    expect(schema.required).toEqual(['name', 'version', 'nodes']);
    expect(nodes.items.required).toEqual(['id', 'type', 'output_path']);
    expect([schema.additionalProperties, nodes.items.additionalProperties]).toEqual([false, false]);
  });
});
