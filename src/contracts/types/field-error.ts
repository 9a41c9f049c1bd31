import type * as z from 'zod';
import { closestMatch, describeValue } from '../../config/index.js';

/** One reason a payload does not satisfy its type: where, what was expected, what was found. */
export interface FieldError {
  /** The field's path as code would write it: `changed_files[0].change`; `(root)` for the payload itself. */
  readonly path: string;
  /** What the field must be, in words: `one of "added", "modified", "deleted"`. */
  readonly expected: string;
  /** What was found, when there was something (`"changed"`, `a number`); absent for a missing field. */
  readonly got?: string;
  /** `path: expected ..., got ...` in one line. */
  readonly message: string;
}

/** The most field errors reported for one payload: enough to fix it, bounded for a hostile one. */
export const MAX_FIELD_ERRORS = 50;

/** Turns zod issues into field errors, each naming the field path and the expected value. */
export function fieldErrorsOf(issues: readonly z.core.$ZodIssue[], schema?: z.ZodType): FieldError[] {
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const allowed = schema === undefined ? [] : keysAt(schema, issue.path);
      for (const key of issue.keys) {
        const suggestion = closestMatch(key, allowed);
        const expected =
          suggestion === undefined
            ? `no key "${key}" (allowed: ${allowed.join(', ') || 'none'})`
            : `no key "${key}"; did you mean "${suggestion}"?`;
        errors.push(fieldError([...issue.path, key], expected, undefined));
      }
    } else {
      errors.push(fieldError(issue.path, expectedOf(issue), gotOf(issue)));
    }
  }
  return errors.slice(0, MAX_FIELD_ERRORS);
}

/** A field error from a path and an expectation. */
export function fieldError(
  path: readonly PropertyKey[],
  expected: string,
  got: string | undefined,
): FieldError {
  const where = formatFieldPath(path);
  return {
    path: where,
    expected,
    ...(got === undefined ? {} : { got }),
    message: `${where}: expected ${expected}${got === undefined ? '' : `, got ${got}`}`,
  };
}

/** `['changed_files', 0, 'change']` -> `changed_files[0].change`; `[]` -> `(root)`. */
export function formatFieldPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') text += `[${String(part)}]`;
    else if (typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(part))
      text += text === '' ? part : `.${part}`;
    else text += `[${JSON.stringify(String(part))}]`;
  }
  return text === '' ? '(root)' : text;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined
        ? `${article(issue.expected)} (the field is required)`
        : article(issue.expected);
    case 'invalid_value': {
      const values =
        issue.values.length === 1
          ? JSON.stringify(issue.values[0])
          : `one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
      // A missing enum field is an invalid_value, not an invalid_type: say it is required all the same.
      return issue.input === undefined ? `${values} (the field is required)` : values;
    }
    case 'invalid_union':
      return 'one of the allowed shapes';
    // Every other issue carries the schema's own expectation as its message (artifact-schemas.ts).
    case 'custom':
    case 'invalid_element':
    case 'invalid_format':
    case 'invalid_key':
    case 'not_multiple_of':
    case 'too_big':
    case 'too_small':
    case 'unrecognized_keys':
      return issue.message;
  }
}

function gotOf(issue: z.core.$ZodIssue): string | undefined {
  if (issue.input === undefined) return undefined;
  if (issue.code === 'invalid_type' && issue.expected === 'int' && typeof issue.input === 'number')
    return String(issue.input);
  return describeGot(issue.input);
}

function describeGot(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (value === null) return 'null';
  if (typeof value === 'object' && !Array.isArray(value)) return 'an object';
  return describeValue(value);
}

function article(expected: string): string {
  switch (expected) {
    case 'string':
      return 'text';
    case 'int':
      return 'a whole number';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'array':
      return 'a list';
    case 'object':
      return 'an object';
    default:
      return expected;
  }
}

/** The keys an object schema allows at `path` (for "did you mean"); [] when the path leads elsewhere. */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.core.$ZodType | undefined = schema;
  for (const part of path) {
    current = current === undefined ? undefined : childOf(unwrap(current), part);
  }
  const object = current === undefined ? undefined : unwrap(current);
  if (object?._zod.def.type !== 'object') return [];
  return Object.keys((object._zod.def as z.core.$ZodObjectDef).shape);
}

function unwrap(schema: z.core.$ZodType): z.core.$ZodType {
  let current = schema;
  for (;;) {
    const def = current._zod.def;
    if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default')
      current = (def as z.core.$ZodOptionalDef).innerType;
    else if (def.type === 'pipe') current = (def as z.core.$ZodPipeDef).in;
    else return current;
  }
}

function childOf(schema: z.core.$ZodType, part: PropertyKey): z.core.$ZodType | undefined {
  const def = schema._zod.def;
  if (def.type === 'array' && typeof part === 'number') return (def as z.core.$ZodArrayDef).element;
  if (def.type === 'object' && typeof part === 'string') return (def as z.core.$ZodObjectDef).shape[part];
  return undefined;
}
