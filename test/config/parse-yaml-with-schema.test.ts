import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigError, type ConfigIssue } from '../../src/config/config-error.js';
import { parseYamlWithSchema, type AllowedKeys } from '../../src/config/parse-yaml-with-schema.js';

const itemShape = { name: z.string(), size: z.int().optional() };
const schema = z
  .strictObject({
    title: z.string().default('untitled'),
    items: z.array(z.strictObject(itemShape)).optional(),
    named: z
      .record(z.string(), z.strictObject({ kind: z.enum(['a', 'b']), a_only: z.int().optional() }))
      .optional(),
    notes: z.string().optional(),
  })
  .superRefine(
    (value, context) => {
      // Rules the tests below drive: point at a key, or at a token inside a scalar.
      if (typeof value.notes === 'string' && value.notes.includes('TODO')) {
        const occurrence = value.notes.startsWith('TODO') && value.notes.lastIndexOf('TODO') > 0 ? 1 : 0;
        context.addIssue({
          code: 'custom',
          path: ['notes'],
          message: 'no TODO',
          params: { token: 'TODO', occurrence },
        });
      }
      if (Array.isArray(value.items) && value.items.some((item) => item.name === 'placed')) {
        context.addIssue({
          code: 'custom',
          path: ['items', 0],
          message: 'key placed, path kept',
          params: { key: 'name', keyInPath: false },
        });
      }
      if (Array.isArray(value.items) && value.items.some((item) => item.name === 'forbidden')) {
        context.addIssue({
          code: 'custom',
          path: ['items', 0],
          message: 'key here',
          params: { key: 'name' },
        });
      }
    },
    { when: () => true },
  );

const ALLOWED: Readonly<Record<string, AllowedKeys>> = {
  '': ['title', 'items', 'named', 'notes'],
  'items.*': Object.keys(itemShape),
  'named.*': (mapping) => (mapping.kind === 'a' ? ['kind', 'a_only'] : ['kind']),
};

function issuesOf(text: string, allowed = ALLOWED): readonly ConfigIssue[] {
  try {
    parseYamlWithSchema(text, 'f.yaml', schema, allowed);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseYamlWithSchema', () => {
  it('returns what the schema produces', () => {
    expect(parseYamlWithSchema('title: t\nitems:\n  - name: x\n', 'f.yaml', schema, ALLOWED)).toEqual({
      title: 't',
      items: [{ name: 'x' }],
    });
  });

  it.each([
    ['an empty document', ''],
    ['only comments', '# nothing\n'],
    ['a bare null', 'null\n'],
  ])('checks %s as an empty mapping', (_name, text) => {
    expect(parseYamlWithSchema(text, 'f.yaml', schema, ALLOWED)).toEqual({ title: 'untitled' });
  });

  it('names list items by index and mapping keys by name in issue paths', () => {
    expect(issuesOf('items:\n  - name: a\n  - name: 1\n').map((issue) => issue.path)).toEqual([
      'items[1].name',
    ]);
    expect(issuesOf('named:\n  x:\n    kind: c\n').map((issue) => issue.path)).toEqual(['named.x.kind']);
  });

  it('suggests keys by the pattern of the path, * matching any list index or mapping key', () => {
    expect(issuesOf('items:\n  - name: a\n  - nmae: b\n    name: c\n')).toEqual([
      {
        path: 'items[1].nmae',
        line: 3,
        column: 5,
        message:
          'unknown key "nmae"; did you mean "name"? Rename it, or remove it (allowed here: name, size)',
      },
    ]);
  });

  it('asks the mapping itself for its keys when they depend on it', () => {
    const [onB] = issuesOf('named:\n  x:\n    kind: b\n    a_onyl: 1\n');
    expect(onB?.message).toBe('unknown key "a_onyl"; remove it (allowed here: kind)');
    const [onA] = issuesOf('named:\n  x:\n    kind: a\n    a_onyl: 1\n');
    expect(onA?.message).toBe(
      'unknown key "a_onyl"; did you mean "a_only"? Rename it, or remove it (allowed here: kind, a_only)',
    );
  });

  it('leaves out the allowed keys when no pattern matches', () => {
    expect(issuesOf('titel: x\n', {})[0]?.message).toBe('unknown key "titel"; remove it');
  });

  it('places a custom issue with params.key on that key, and names it in the path', () => {
    expect(issuesOf('items:\n  - size: 1\n    name: forbidden\n')).toEqual([
      { path: 'items[0].name', line: 3, column: 5, message: 'key here' },
    ]);
  });

  it('places a custom issue with params.keyInPath false on the key, its path left at the mapping', () => {
    expect(issuesOf('items:\n  - size: 1\n    name: placed\n')).toEqual([
      { path: 'items[0]', line: 3, column: 5, message: 'key placed, path kept' },
    ]);
  });

  it.each([
    ['an alias of nothing', 'notes: *Tr0ub4dorZq\n', 1, 8],
    ['an alias before its anchor', 'title: *Tr0ub4dorZq\nnotes: &Tr0ub4dorZq x\n', 1, 8],
  ])('points at %s without naming it (it may be a password after a "*")', (_name, text, line, column) => {
    expect(issuesOf(text)).toEqual([
      {
        path: '',
        line,
        column,
        message:
          'an alias (*name) whose anchor (&name) is not set before it; if this is text that starts with "*", quote it',
      },
    ]);
  });

  it.each([
    ['a plain scalar', 'notes: see TODO later\n', 1, 12],
    ['a block scalar', 'notes: |\n  first\n  then TODO\n', 3, 8],
    ['the second occurrence', 'notes: TODO and TODO\n', 1, 17],
    ['a double-quoted scalar', 'notes: "x TODO"\n', 1, 11],
    ['a token hidden by an escape, at the scalar', 'notes: "x \\x54ODO"\n', 1, 8],
  ])('places a custom issue with params.token on the token in %s', (_name, text, line, column) => {
    expect(issuesOf(text)).toEqual([{ path: 'notes', line, column, message: 'no TODO' }]);
  });

  it('sorts issues by line and column', () => {
    const issues = issuesOf('notes: TODO\nitems:\n  - name: 1\ntitle: 2\nextra: 1\n');
    expect(issues.map((issue) => [issue.line, issue.column])).toEqual([
      [1, 8],
      [3, 11],
      [4, 8],
      [5, 1],
    ]);
  });

  it('locates a missing value at the nearest enclosing node', () => {
    expect(issuesOf('items:\n  - size: 1\n')).toEqual([
      expect.objectContaining({ path: 'items[0].name', line: 2, column: 5 }),
    ]);
  });

  it('reports YAML syntax errors alone, and a repeated key by name', () => {
    const issues = issuesOf('title: [x\nextra: 1\n');
    expect(issues.every((issue) => issue.message.startsWith('YAML syntax error ('))).toBe(true);
    expect(issuesOf('title: a\ntitle: b\n')).toEqual([
      {
        path: '',
        line: 2,
        column: 1,
        message: 'key "title" appears twice in the same mapping; keep only one of them',
      },
    ]);
  });

  it('refuses a document whose aliases would expand without bound', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level <= 8; level += 1) {
      const previous = String.fromCharCode(96 + level);
      const name = String.fromCharCode(97 + level);
      lines.push(`${name}: &${name} [${Array.from({ length: 10 }, () => `*${previous}`).join(', ')}]`);
    }
    const error = (() => {
      try {
        parseYamlWithSchema(`${lines.join('\n')}\n`, 'bomb.yaml', z.unknown(), {});
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]?.message).toMatch(
      /^YAML could not be read: .*; remove the aliases/,
    );
  });
});

describe('parseYamlWithSchema: an issue quotes at most the line it names, redacted', () => {
  const secret = 'ghp_ConfigQuotedSecretConfigQuotedSecret12';

  it.each([
    ['a key that is a secret', `${secret}: 1\n`, 1],
    ['a key spanning several lines', `? |\n  first key line ${secret}\n  zq-second-line\n: 1\n`, 1],
    ['a duplicate key that is a secret', `${secret}: 1\n${secret}: 2\n`, 2],
    ['a YAML syntax error quoting a token of several lines', '- a\n|\n  first line\n  zq-second-line\n', 2],
    ['a syntax error quoting a secret', `- a\n|\n  ${secret}\n`, 2],
  ])('%s', (_case, text, line) => {
    const issues = issuesOf(text);
    const named = issues.find((issue) => issue.line === line);
    expect(named, JSON.stringify(issues)).toBeDefined();
    for (const issue of issues) {
      for (const shown of [issue.message, issue.path]) {
        expect(shown).not.toContain(secret);
        expect(shown).not.toContain('zq-second-line');
        expect(shown).not.toMatch(/[\r\n]|\\n/);
      }
    }
  });
});
