import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  CONTRACT_EXAMPLES,
  CONTRACT_TYPES,
  MAX_SUBJECT_LENGTH,
  PROJECT_PATH_PATTERN,
  contractJsonSchema,
  contractJsonSchemas,
  validateArtifact,
} from '../../../src/contracts/index.js';
import { checkDeclaredPath } from '../../../src/workspace/index.js';

type JsonSchema = Record<string, unknown>;

/** Every object schema in a JSON Schema, with its JSON pointer-ish location. */
function objectSchemas(schema: JsonSchema, at = '#'): [string, JsonSchema][] {
  const found: [string, JsonSchema][] = schema['type'] === 'object' ? [[at, schema]] : [];
  const properties = (schema['properties'] ?? {}) as Record<string, JsonSchema>;
  for (const [key, child] of Object.entries(properties)) found.push(...objectSchemas(child, `${at}/${key}`));
  const items = schema['items'] as JsonSchema | undefined;
  if (items !== undefined) found.push(...objectSchemas(items, `${at}[]`));
  return found;
}

/** The patterns a string schema states, alone or in an allOf. */
function patternsOf(schema: JsonSchema): RegExp[] {
  const parts = [schema, ...((schema['allOf'] ?? []) as JsonSchema[])];
  return parts
    .map((part) => part['pattern'])
    .filter((pattern): pattern is string => typeof pattern === 'string')
    .map((pattern) => new RegExp(pattern, 'u'));
}

const matchesAll = (schema: JsonSchema, value: string) =>
  patternsOf(schema).every((regex) => regex.test(value));

function property(schema: JsonSchema, ...path: string[]): JsonSchema {
  let current = schema;
  for (const key of path) {
    current =
      key === '[]'
        ? (current['items'] as JsonSchema)
        : ((current['properties'] as Record<string, JsonSchema>)[key] as JsonSchema);
  }
  return current;
}

describe('contractJsonSchema', () => {
  it.each(CONTRACT_TYPES)('docs/contracts/%s.schema.json is fresh (npm run fixtures:regen)', async (type) => {
    const published = JSON.parse(
      await readFile(new URL(`../../../docs/contracts/${type}.schema.json`, import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(contractJsonSchema(type));
  });

  it.each(CONTRACT_TYPES)('closes every object of %s: unknown keys are not allowed at any depth', (type) => {
    const objects = objectSchemas(contractJsonSchema(type));
    expect(objects.length).toBeGreaterThan(0);
    for (const [at, object] of objects) expect(object['additionalProperties'], at).toBe(false);
  });

  it.each(CONTRACT_TYPES)('carries the example of %s, which the zod schema accepts', (type) => {
    const schema = contractJsonSchema(type);
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object' });
    expect(schema['examples']).toEqual([CONTRACT_EXAMPLES[type]]);
    expect(validateArtifact(type, CONTRACT_EXAMPLES[type]).ok).toBe(true);
  });

  it('returns all ten by type', () => {
    const all = contractJsonSchemas();
    expect(Object.keys(all)).toEqual([...CONTRACT_TYPES]);
    for (const type of CONTRACT_TYPES) expect(all[type]).toEqual(contractJsonSchema(type));
  });

  it('says the subject rules as maxLength and patterns: 72 characters, no trailing period, one line', () => {
    const subject = property(contractJsonSchema('commit_message'), 'subject');
    expect(subject['maxLength']).toBe(MAX_SUBJECT_LENGTH);
    expect(matchesAll(subject, CONTRACT_EXAMPLES.commit_message.subject)).toBe(true);
    expect(matchesAll(subject, 'add the limiter.')).toBe(false);
    expect(matchesAll(subject, 'add the limiter\nand its test')).toBe(false);
    expect(matchesAll(subject, '   ')).toBe(false);
  });

  it('agrees with the zod schema on the subject rules', () => {
    const subject = property(contractJsonSchema('commit_message'), 'subject');
    for (const value of ['add the limiter', 'add the limiter.', 'one\ntwo', 'x\r', ' ', 'v1.2 is out']) {
      const payload = { ...CONTRACT_EXAMPLES.commit_message, subject: value };
      expect(matchesAll(subject, value), JSON.stringify(value)).toBe(
        validateArtifact('commit_message', payload).ok,
      );
    }
  });

  it('says the scope and footer token rules as patterns', () => {
    const schema = contractJsonSchema('commit_message');
    expect(matchesAll(property(schema, 'scope'), 'cli')).toBe(true);
    expect(matchesAll(property(schema, 'scope'), 'cli http')).toBe(false);
    expect(matchesAll(property(schema, 'footers', '[]', 'token'), 'BREAKING CHANGE')).toBe(true);
    expect(matchesAll(property(schema, 'footers', '[]', 'token'), 'Refs:')).toBe(false);
  });

  it.each([
    ['development_result', ['changed_files', '[]', 'path']],
    ['fix_result', ['changed_files', '[]', 'path']],
    ['issues', ['issues', '[]', 'path']],
    ['commit_cleanup', ['actions', '[]', 'path']],
  ] as const)('publishes the path pattern on every payload path of %s', (type, path) => {
    const schema = property(contractJsonSchema(type), ...path);
    expect(schema['pattern']).toBe(PROJECT_PATH_PATTERN);
    expect(schema['description']).toMatch(/project-relative/);
  });

  // The pattern may allow what checkDeclaredPath refuses (reserved names, .git), never the other way round.
  it.each([
    ['src/a.ts', true],
    ['./docs/guide.md', true],
    ['a..b/c', true],
    ['..', false],
    ['../etc/passwd', false],
    ['src/../../x', false],
    ['src/..', false],
    ['/etc/passwd', false],
    ['\\\\server\\share', false],
    ['C:\\Windows\\x', false],
    ['C:/Windows/x', false],
    ['src\\a.ts', false],
    ['a:b', false],
    ['a\u0007b', false],
    ['', false],
  ])('the path pattern judges %j as %s, as checkDeclaredPath does', (value, allowed) => {
    const regex = new RegExp(PROJECT_PATH_PATTERN, 'u');
    expect(regex.test(value)).toBe(allowed);
    expect(checkDeclaredPath(value).ok).toBe(allowed);
  });

  it('says the unique ids, which JSON Schema cannot check, in the description', () => {
    expect(property(contractJsonSchema('issues'), 'issues')['description']).toMatch(/used once/);
    expect(property(contractJsonSchema('product_spec'), 'requirements')['description']).toMatch(/used once/);
  });
});
