import { describe, expect, it } from 'vitest';
import {
  CONTRACT_EXAMPLES,
  CONTRACT_TYPES,
  MAX_SUBJECT_LENGTH,
  PROJECT_PATH_PATTERN,
  contractJsonSchema,
  formatFieldPath,
  validateArtifact,
} from '../../../src/contracts/index.js';
import type { ContractType, FieldError } from '../../../src/contracts/index.js';

type JsonSchema = Record<string, unknown>;
type Path = readonly (string | number)[];
const REMOVE = Symbol('remove');

/** A field of a type, walked from its JSON Schema; list items are reached through item 0 of the example. */
interface Site {
  readonly type: ContractType;
  readonly path: Path;
  readonly schema: JsonSchema;
  /** Required in its object (false for an optional field and for a list item). */
  readonly required: boolean;
}

function sitesOf(type: ContractType): Site[] {
  const sites: Site[] = [];
  const walk = (schema: JsonSchema, path: Path) => {
    const required = new Set((schema['required'] ?? []) as string[]);
    for (const [key, child] of Object.entries((schema['properties'] ?? {}) as Record<string, JsonSchema>)) {
      const at = [...path, key];
      sites.push({ type, path: at, schema: child, required: required.has(key) });
      if (child['type'] === 'object') walk(child, at);
      const items = child['items'] as JsonSchema | undefined;
      if (items?.['type'] === 'object') walk(items, [...at, 0]);
      else if (items !== undefined) sites.push({ type, path: [...at, 0], schema: items, required: false });
    }
  };
  walk(contractJsonSchema(type), []);
  return sites;
}

/** The object schemas of a type (the payload and each list item), with their paths. */
function objectsOf(type: ContractType): { path: Path; keys: string[] }[] {
  const top = contractJsonSchema(type);
  const objects = [{ path: [] as Path, keys: Object.keys(top['properties'] as object) }];
  for (const site of sitesOf(type)) {
    const items = site.schema['items'] as JsonSchema | undefined;
    if (items?.['type'] === 'object')
      objects.push({ path: [...site.path, 0], keys: Object.keys(items['properties'] as object) });
  }
  return objects;
}

/** A copy of the example of `type` with the value at `path` replaced (or removed), creating what is missing. */
function changed(type: ContractType, path: Path, value: unknown): unknown {
  const payload = structuredClone(CONTRACT_EXAMPLES[type]) as unknown as Record<string | number, unknown>;
  let container: Record<string | number, unknown> = payload;
  path.slice(0, -1).forEach((part, index) => {
    const next = path[index + 1];
    container[part] ??= typeof next === 'number' ? [] : {};
    container = container[part] as Record<string | number, unknown>;
  });
  const last = path.at(-1) as string | number;
  if (value === REMOVE) Reflect.deleteProperty(container, last);
  else container[last] = value;
  return payload;
}

function errorsOf(type: ContractType, payload: unknown): readonly FieldError[] {
  const validation = validateArtifact(type, payload);
  if (validation.ok) throw new Error(`${type}: the payload was accepted`);
  return validation.errors;
}

/** Refused, with an error at exactly `path` whose `expected` matches. */
function expectRefused(type: ContractType, payload: unknown, path: string, expected: RegExp | string): void {
  const errors = errorsOf(type, payload);
  const atPath = errors.filter((error) => error.path === path);
  expect(atPath, `${type}: errors were ${JSON.stringify(errors)}`).not.toHaveLength(0);
  const wanted = typeof expected === 'string' ? expected : undefined;
  const matching = atPath.filter((error) =>
    wanted === undefined ? (expected as RegExp).test(error.expected) : error.expected === wanted,
  );
  expect(matching, `${type} ${path}: ${JSON.stringify(atPath)}`).not.toHaveLength(0);
  for (const error of matching) expect(error.message.startsWith(`${path}: expected `)).toBe(true);
}

const allSites = CONTRACT_TYPES.flatMap(sitesOf);
const row = (site: Site) => [site.type, formatFieldPath(site.path), site] as const;
const isText = (schema: JsonSchema) =>
  schema['type'] === 'string' &&
  [schema, ...((schema['allOf'] ?? []) as JsonSchema[])].some((part) => part['pattern'] === '\\S');

describe('ARTIFACT_SCHEMAS', () => {
  it.each(CONTRACT_TYPES)('accepts the example of %s', (type) => {
    expect(validateArtifact(type, CONTRACT_EXAMPLES[type])).toEqual({
      ok: true,
      type,
      payload: CONTRACT_EXAMPLES[type],
    });
  });

  // Nested rows change item 0 of each list: an empty list in an example would leave them untested.
  it.each(CONTRACT_TYPES)('has at least one item in every list of the %s example', (type) => {
    for (const site of sitesOf(type).filter((each) => each.schema['type'] === 'array')) {
      const [name] = site.path as [string];
      const list = (CONTRACT_EXAMPLES[type] as Record<string, unknown>)[name];
      if (site.required || list !== undefined) expect(list, `${type}.${name}`).not.toHaveLength(0);
    }
  });

  describe('refuses a required field removed, naming its path and what to write', () => {
    it.each(allSites.filter((site) => site.required).map(row))('%s without %s', (type, path, site) => {
      const values = site.schema['enum'] as unknown[] | undefined;
      expectRefused(
        type,
        changed(type, site.path, REMOVE),
        path,
        values === undefined
          ? /^(text|a number|a list|true or false) \(the field is required\)$/
          : `one of ${values.map((value) => JSON.stringify(value)).join(', ')} (the field is required)`,
      );
    });
  });

  describe('refuses a value of the wrong JSON type', () => {
    const wrong: Record<string, [unknown, RegExp]> = {
      string: [42, /^text$|^one of /],
      integer: ['7', /^a number$/],
      boolean: ['yes', /^true or false$/],
      array: ['one, two', /^a list$/],
      object: [[], /^an object$/],
    };
    it.each(allSites.map(row))('%s with the wrong type at %s', (type, path, site) => {
      const [value, expected] = wrong[String(site.schema['type'])] ?? [];
      expect(expected, `no wrong value for ${String(site.schema['type'])}`).toBeDefined();
      expectRefused(type, changed(type, site.path, value), path, expected ?? /./);
    });
  });

  describe('refuses a value outside every enum, listing the allowed values', () => {
    it.each(allSites.filter((site) => site.schema['enum'] !== undefined).map(row))(
      '%s with an unknown value at %s',
      (type, path, site) => {
        const values = site.schema['enum'] as unknown[];
        expectRefused(
          type,
          changed(type, site.path, 'not_a_value'),
          path,
          `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`,
        );
      },
    );
  });

  describe('refuses empty or blank text', () => {
    it.each(
      allSites
        .filter((site) => isText(site.schema))
        .flatMap((site) => [
          [...row(site), ''],
          [...row(site), ' \n\t'],
        ]),
    )('%s with %s set to %j', (type, path, site, value) => {
      expectRefused(type, changed(type, site.path, value), path, 'non-empty text');
    });
  });

  describe('refuses a payload path that leaves the project', () => {
    const pathSites = allSites.filter((site) => site.schema['pattern'] === PROJECT_PATH_PATTERN);
    it('finds the path fields of four types', () => {
      expect(pathSites.map((site) => `${site.type} ${formatFieldPath(site.path)}`)).toEqual([
        'development_result changed_files[0].path',
        'issues issues[0].path',
        'fix_result changed_files[0].path',
        'commit_cleanup actions[0].path',
      ]);
    });
    const bad = [
      ['../outside.ts', 'traversal'],
      ['src/../../outside.ts', 'traversal'],
      ['/etc/passwd', 'absolute_path'],
      ['C:\\Windows\\system.ini', 'drive_letter'],
      ['C:/Windows/system.ini', 'drive_letter'],
      ['\\\\server\\share\\a.txt', 'unc_path'],
      ['src\\a.ts', 'backslash'],
      ['', 'empty_path'],
      ['.git/config', 'git_dir'],
    ] as const;
    it.each(pathSites.flatMap((site) => bad.map(([value, code]) => [...row(site), value, code] as const)))(
      '%s with %s set to %j (%s)',
      (type, path, site, value, code) => {
        expectRefused(
          type,
          changed(type, site.path, value),
          path,
          new RegExp(`^a project-relative path \\(${code}: the path `),
        );
      },
    );
  });

  describe('refuses an unknown key at every level, suggesting the key meant', () => {
    const objects = CONTRACT_TYPES.flatMap((type) => objectsOf(type).map((object) => ({ type, ...object })));
    it.each(objects.map((object) => [object.type, formatFieldPath(object.path), object] as const))(
      '%s with a misspelt key at %s',
      (type, _where, object) => {
        const [key = ''] = object.keys;
        const typo = `${key.slice(0, -1)}${key.slice(-1).repeat(2)}`;
        expectRefused(
          type,
          changed(type, [...object.path, typo], 'x'),
          formatFieldPath([...object.path, typo]),
          `no key "${typo}"; did you mean "${key}"?`,
        );
        expectRefused(
          type,
          changed(type, [...object.path, 'zzqx'], 1),
          formatFieldPath([...object.path, 'zzqx']),
          `no key "zzqx" (allowed: ${object.keys.join(', ')})`,
        );
      },
    );
  });

  describe('refuses numbers out of range', () => {
    it.each(allSites.filter((site) => site.schema['type'] === 'integer').map(row))(
      '%s with a fraction at %s',
      (type, path, site) => {
        expectRefused(type, changed(type, site.path, 4.5), path, /^a whole number$/);
      },
    );
    it.each([
      ['smoke_test_result', ['passed'], -1, 'a count of 0 or more'],
      ['smoke_test_result', ['failed'], -3, 'a count of 0 or more'],
      ['issues', ['issues', 0, 'line'], 0, 'a line number of 1 or more'],
      ['issues', ['issues', 0, 'line'], -7, 'a line number of 1 or more'],
    ] as const)('%s with %j set to %d', (type, path, value, expected) => {
      expectRefused(type, changed(type, path, value), formatFieldPath(path), expected);
    });
  });

  describe('refuses a commit_message that breaks the Conventional Commits rules', () => {
    const subjectOf = (length: number) => 'a'.repeat(length);
    it('accepts a subject of exactly 72 characters', () => {
      expect(
        validateArtifact('commit_message', changed('commit_message', ['subject'], subjectOf(72))).ok,
      ).toBe(true);
    });
    it.each([
      ['subject', subjectOf(MAX_SUBJECT_LENGTH + 1), 'a subject of at most 72 characters'],
      ['subject', 'add the limiter.', 'a subject without a trailing period'],
      ['subject', 'add the limiter\nand its test', 'a one-line subject (put the details in body)'],
      ['subject', 'add the limiter\r\n', 'a one-line subject (put the details in body)'],
      ['type', 'feature', /^one of "feat", "fix", "docs"/],
      ['scope', '', 'one word such as cli or fence (no space, no parenthesis)'],
      ['scope', 'cli http', 'one word such as cli or fence (no space, no parenthesis)'],
      ['scope', 'cli)', 'one word such as cli or fence (no space, no parenthesis)'],
      ['scope', 'cli\n', 'one word such as cli or fence (no space, no parenthesis)'],
    ] as const)('refuses %s %j', (key, value, expected) => {
      expectRefused('commit_message', changed('commit_message', [key], value), key, expected);
    });
    it.each(['cli', 'API', 'runtime/run', 'deps-dev'])('accepts the scope %j', (scope) => {
      expect(validateArtifact('commit_message', changed('commit_message', ['scope'], scope)).ok).toBe(true);
    });
    it.each(['Refs:', 'Reviewed by', 'BREAKING-CHANGE:', '1x', ''])(
      'refuses the footer token %j',
      (token) => {
        expectRefused(
          'commit_message',
          changed('commit_message', ['footers', 0, 'token'], token),
          'footers[0].token',
          'a footer token such as Refs, Reviewed-by or BREAKING CHANGE',
        );
      },
    );
    it.each(['Refs', 'Reviewed-by', 'BREAKING CHANGE', 'Co-authored-by'])(
      'accepts the footer token %j',
      (token) => {
        expect(
          validateArtifact('commit_message', changed('commit_message', ['footers', 0, 'token'], token)).ok,
        ).toBe(true);
      },
    );
    it('reports every broken subject rule at once', () => {
      const errors = errorsOf(
        'commit_message',
        changed('commit_message', ['subject'], `${subjectOf(80)}\nmore.`),
      );
      expect(errors.map((error) => error.expected)).toEqual([
        'a subject of at most 72 characters',
        'a subject without a trailing period',
        'a one-line subject (put the details in body)',
      ]);
    });
  });

  describe('refuses duplicate ids, naming the repeat', () => {
    it('refuses an issue id used twice', () => {
      const [first, second] = CONTRACT_EXAMPLES.issues.issues;
      const payload = { issues: [first, { ...second, id: first?.id }] };
      expectRefused(
        'issues',
        payload,
        'issues[1].id',
        'an issue id not used before ("ISS-1" is already the id of item 0)',
      );
    });
    it('refuses a requirement id used twice', () => {
      const requirements = CONTRACT_EXAMPLES.product_spec.requirements.map((requirement) => ({
        ...requirement,
        id: 'R1',
      }));
      const errors = errorsOf('product_spec', { ...CONTRACT_EXAMPLES.product_spec, requirements });
      expect(errors.map((error) => error.path)).toEqual(['requirements[1].id', 'requirements[2].id']);
      expect(errors[0]?.expected).toBe('a requirement id not used before ("R1" is already the id of item 0)');
    });
  });

  it('accepts an empty issues list (the review found nothing) and empty optional lists', () => {
    expect(validateArtifact('issues', { issues: [] }).ok).toBe(true);
    expect(
      validateArtifact('commit_message', { type: 'fix', subject: 'x', breaking: true, footers: [] }).ok,
    ).toBe(true);
  });

  it.each(CONTRACT_TYPES)('refuses a %s payload that is not an object', (type) => {
    for (const payload of [null, [], 'text', 3]) {
      expectRefused(type, payload, '(root)', 'an object');
    }
  });
});
