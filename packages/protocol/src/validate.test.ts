import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { checkBuilt, isPlainObject, parseJsonText, validate } from './validate';

describe('isPlainObject', () => {
  it('is true for object literals and null-prototype objects', () => {
    expect(isPlainObject({})).toBe(true);
    expect(isPlainObject(Object.create(null))).toBe(true);
    expect(isPlainObject(JSON.parse('{"a":1}'))).toBe(true);
  });

  it('is false for arrays, null, primitives and class instances', () => {
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
    expect(isPlainObject('x')).toBe(false);
    expect(isPlainObject(new Date())).toBe(false);
    expect(isPlainObject(new Error('x'))).toBe(false);
  });
});

describe('parseJsonText', () => {
  it('parses JSON text', () => {
    expect(parseJsonText('{"a":[1]}')).toStrictEqual({ ok: true, value: { a: [1] } });
  });

  it('reports bad JSON with a stable prefix', () => {
    const result = parseJsonText('{nope');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message).toMatch(/^invalid JSON: /);
  });
});

describe('validate', () => {
  const schema = z.object({
    name: z.string().min(1),
    id: z.union([z.string(), z.number()]),
    tags: z.array(z.object({ key: z.string() })).optional(),
    kind: z.literal('a').optional(),
    state: z.enum(['on', 'off']).optional(),
    count: z.number().int().optional(),
    never: z.never().optional(),
  });

  const messageFor = (value: unknown, root?: string): string => {
    const result = validate(schema, value, root);
    if (result.ok) throw new Error('expected a failure');
    return result.message;
  };

  it('returns the parsed value on success', () => {
    expect(validate(schema, { name: 'n', id: 1, extra: true })).toStrictEqual({
      ok: true,
      value: { name: 'n', id: 1 },
    });
  });

  it('says a missing field is required', () => {
    expect(messageFor({ id: 1 })).toBe('"name" is required');
  });

  it('names the expected type', () => {
    expect(messageFor({ name: 3, id: 1 })).toBe('"name" must be a string');
    expect(messageFor({ name: 'n', id: 1, count: 1.5 })).toBe('"count" must be an integer');
    expect(messageFor({ name: 'n', id: 1, tags: {} })).toBe('"tags" must be an array');
  });

  it('lists the members of a failed union', () => {
    expect(messageFor({ name: 'n', id: null })).toBe('"id" must be a string or number');
  });

  it('lists allowed literal values', () => {
    expect(messageFor({ name: 'n', id: 1, kind: 'b' })).toBe('"kind" must be "a"');
    expect(messageFor({ name: 'n', id: 1, state: 'x' })).toBe('"state" must be "on" or "off"');
  });

  it('says an empty string is empty and a forbidden member is not allowed', () => {
    expect(messageFor({ name: '', id: 1 })).toBe('"name" must not be empty');
    expect(messageFor({ name: 'n', id: 1, never: 1 })).toBe('"never" is not allowed here');
  });

  it('writes nested paths with dots and brackets, under an optional root', () => {
    expect(messageFor({ name: 'n', id: 1, tags: [{ key: 'k' }, {}] })).toBe('"tags[1].key" is required');
    expect(messageFor({ id: 1 }, 'params')).toBe('"params.name" is required');
    expect(messageFor(undefined, 'params')).toBe('"params" is required');
    expect(messageFor(7)).toBe('value must be an object');
  });

  it('joins every issue', () => {
    expect(messageFor({})).toBe('"name" is required; "id" must be a string or number');
  });
});

describe('checkBuilt', () => {
  it('returns the value itself when it is valid', () => {
    const value = { a: 'x' };
    expect(checkBuilt(z.object({ a: z.string() }), value, 'make')).toBe(value);
  });

  it('throws a TypeError naming the builder and the field', () => {
    expect(() => checkBuilt(z.object({ a: z.string().min(1) }), { a: '' }, 'make')).toThrow(new TypeError('make: "a" must not be empty'));
  });
});
