import * as z from 'zod';
import { describe, expect, it } from 'vitest';
import {
  ARTIFACT_SCHEMAS,
  CONTRACT_EXAMPLES,
  CONTRACT_TYPES,
  MAX_SUMMARY_EXAMPLE_CHARS,
  contractDocUri,
  contractSummary,
  validateArtifactText,
} from '../../../src/contracts/index.js';

/** A field of a zod object schema, at any depth, as the schema itself says it. */
interface SchemaField {
  readonly key: string;
  /** The top-level key the field sits under (itself at the top level). */
  readonly top: string;
  readonly required: boolean;
  readonly values: readonly string[];
}

// Walks the zod schema itself (not contractFields, which the summary is made from): the expectation's source.
function schemaFields(schema: z.ZodType, top?: string): SchemaField[] {
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, field]) => {
    const required = !(field instanceof z.ZodOptional);
    const inner = field instanceof z.ZodOptional ? (field.unwrap() as z.ZodType) : field;
    const values = inner instanceof z.ZodEnum ? inner.options.map(String) : [];
    const element = inner instanceof z.ZodArray ? (inner.element as z.ZodType) : inner;
    return [{ key, top: top ?? key, required, values }, ...schemaFields(element, top ?? key)];
  });
}

describe('contractSummary', () => {
  it.each(CONTRACT_TYPES)('names every field of %s, marking the optional ones, with its values', (type) => {
    const lines = contractSummary(type).split('\n');
    const fields = schemaFields(ARTIFACT_SCHEMAS[type]);
    expect(fields.filter((field) => field.required).length).toBeGreaterThan(0);
    for (const field of fields) {
      const line = lines.find((text) => new RegExp(`^- ${field.top}\\??:`).test(text)) ?? '';
      const name = `${field.key}${field.required ? '' : '?'}:`;
      const at = field.key === field.top ? `- ${name}` : new RegExp(`[{;] ${name.replace('?', '\\?')}`);
      expect(line, `${type}: ${field.key}`).toMatch(at);
      for (const value of field.values) expect(line).toContain(JSON.stringify(value));
    }
  });

  it.each(CONTRACT_TYPES)(
    'keeps %s short, ends with the URI of the full format and names no file',
    (type) => {
      const summary = contractSummary(type);
      expect(summary.split('\n').length).toBeLessThanOrEqual(12);
      expect(summary.length).toBeLessThanOrEqual(1_200);
      expect(summary.split('\n').at(-1)).toBe(`Full format: artifact-ingest://contracts/${type}`);
      expect(contractDocUri(type)).toBe(`artifact-ingest://contracts/${type}`);
      expect(summary).not.toContain('docs/');
    },
  );

  it.each(CONTRACT_TYPES)('shows the %s example when it is short, as one line that validates', (type) => {
    const example = JSON.stringify(CONTRACT_EXAMPLES[type]);
    const line = contractSummary(type)
      .split('\n')
      .find((text) => text.startsWith('Example: '));
    if (example.length > MAX_SUMMARY_EXAMPLE_CHARS) {
      expect(line).toBeUndefined();
      return;
    }
    expect(line).toBe(`Example: ${example}`);
    expect(validateArtifactText(type, example).ok).toBe(true);
  });

  it('writes nested fields between braces and the rules after the type', () => {
    expect(contractSummary('development_result')).toContain(
      '- changed_files: list of { path: text, a project-relative path (no `..` segment, not absolute); change: "added" | "modified" | "deleted" }',
    );
    expect(contractSummary('commit_message')).toContain(
      '- subject: text, at most 72 characters, not empty, no trailing period, one line',
    );
  });
});
