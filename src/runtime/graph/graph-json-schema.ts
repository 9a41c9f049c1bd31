import * as z from 'zod';
import { graphSchema } from './graph-schema.js';

/**
 * The JSON Schema of a graph file as written (docs/graph.schema.json), for editors: a
 * `# yaml-language-server: $schema=...` line at the top of a graph file makes them complete and check it.
 */
export function graphJsonSchema(): Record<string, unknown> {
  return {
    // io 'input': the file as its author writes it, before the loader's defaults and renames (depends_on).
    ...z.toJSONSchema(graphSchema, { io: 'input', unrepresentable: 'any' }),
    title: 'artifact-ingest graph',
    description:
      'A graph of agent_task, write_file and command nodes that artifact-ingest run executes (docs/runtime.md). ' +
      'The rules across values (dependencies exist, no cycles, templates name known variables) are checked when the graph is loaded.',
  };
}
