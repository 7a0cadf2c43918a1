// Internal helpers shared by the parsers: JSON text, plain-object checks and zod issues turned into one short
// sentence that names the field ("\"id\" must be a string or number"), so peers get errors they can act on.
import { z } from 'zod';

export type Validated<T> = { ok: true; value: T } | { ok: false; message: string };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

export function parseJsonText(text: string): Validated<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // Engines word this differently; keep theirs after a stable prefix.
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `invalid JSON: ${detail}` };
  }
}

/** Validates with `schema`; on failure every issue becomes one clause, joined with "; ". */
export function validate<S extends z.ZodType>(schema: S, value: unknown, root?: string): Validated<z.output<S>> {
  // reportInput keeps `input` on issues so a missing field reads "is required" rather than "must be a string".
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, message: describeIssues(result.error.issues, root) };
}

/**
 * The one way zod issues become words, for wire messages and tool arguments alike: one clause per issue naming the
 * field, joined with "; ". Parse with `{ reportInput: true }` so a missing field reads "is required".
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], root?: string): string {
  return issues.map((issue) => describeIssue(issue, root)).join('; ');
}

/** For builders: returns `value` if it is valid, else throws a TypeError that names the builder and the field. */
export function checkBuilt<S extends z.ZodType>(schema: S, value: z.output<S>, builder: string): z.output<S> {
  const checked = validate(schema, value);
  if (!checked.ok) throw new TypeError(`${builder}: ${checked.message}`);
  return value;
}

export function describeIssue(issue: z.core.$ZodIssue, root?: string): string {
  const field = fieldName(root === undefined ? issue.path : [root, ...issue.path]);
  // A sentence the schema's author wrote says more than ours ("target must not be empty: pass a ref …").
  const own = authoredMessage(issue);
  if (own !== undefined) return issue.path.length || root !== undefined ? `${field}: ${own}` : own;
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined && issue.expected !== 'never') return `${field} is required`;
      if (issue.expected === 'never') return `${field} is not allowed here`;
      return `${field} must be ${typeName(issue.expected)}`;
    case 'invalid_value':
      return `${field} must be ${orList(issue.values.map((v) => JSON.stringify(v) ?? String(v)))}`;
    case 'invalid_union': {
      const expected = unionExpectations(issue.errors);
      return expected ? `${field} must be ${expected}` : `${field} matches none of the allowed shapes`;
    }
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return `${field} must not be empty`;
      if (issue.origin === 'array') return `${field} must have at least ${issue.minimum} item(s)`;
      if (issue.origin === 'string') return `${field} must have at least ${issue.minimum} characters`;
      return `${field} must be ${issue.inclusive ? '>=' : '>'} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'array') return `${field} must have at most ${issue.maximum} item(s)`;
      if (issue.origin === 'string') return `${field} must have at most ${issue.maximum} characters`;
      return `${field} must be ${issue.inclusive ? '<=' : '<'} ${issue.maximum}`;
    case 'unrecognized_keys':
      return `${field} has unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
    case 'invalid_format':
      return `${field} must be a valid ${issue.format}`;
    default:
      return `${field}: ${issue.message}`;
  }
}

/** The issue's message when the schema gave it one (`.min(1, '…')`, a refinement's), not zod's default wording. */
function authoredMessage(issue: z.core.$ZodIssue): string | undefined {
  const fallback = z.config().localeError?.(issue as Parameters<NonNullable<ReturnType<typeof z.config>['localeError']>>[0]);
  const wording = typeof fallback === 'string' ? fallback : fallback?.message;
  return issue.message && issue.message !== wording ? issue.message : undefined;
}

function fieldName(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'value';
  let name = '';
  for (const key of path) {
    if (typeof key === 'number') name += `[${key}]`;
    else name += name === '' ? String(key) : `.${String(key)}`;
  }
  return `"${name}"`;
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'a boolean',
  null: 'null',
  object: 'an object',
  record: 'an object',
  array: 'an array',
};

function typeName(expected: string): string {
  return TYPE_NAMES[expected] ?? expected;
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? 'nothing';
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** "a string or number" when every union member failed on the value's type itself; otherwise undefined. */
function unionExpectations(branches: readonly (readonly z.core.$ZodIssue[])[]): string | undefined {
  const names: string[] = [];
  for (const branch of branches) {
    const issue = branch[0];
    if (branch.length !== 1 || issue === undefined || issue.path.length !== 0) return undefined;
    if (issue.code === 'invalid_type') names.push(typeName(issue.expected));
    else if (issue.code === 'invalid_value') names.push(...issue.values.map((v) => JSON.stringify(v) ?? String(v)));
    else return undefined;
  }
  // "a string, a number or null" reads better as "a string, number or null": drop repeated articles.
  const bare = names.map((name, i) => (i === 0 ? name : name.replace(/^an? /, '')));
  return orList([...new Set(bare)]);
}
