import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  JSONRPC_VERSION,
  jsonRpcError,
  jsonRpcErrorResponseSchema,
  jsonRpcIdSchema,
  jsonRpcMessageSchema,
  jsonRpcNotification,
  jsonRpcNotificationSchema,
  jsonRpcParamsSchema,
  jsonRpcRequest,
  jsonRpcRequestSchema,
  jsonRpcResponseSchema,
  jsonRpcResult,
  jsonRpcSuccessResponseSchema,
  parseMessage,
  type MessageParseResult,
} from './jsonrpc';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth';
import { ErrorCodes } from './errors';

function failureOf(result: MessageParseResult): { code: number; message: string; id: unknown } {
  if (result.ok) throw new Error(`expected a failure, got ${result.kind}`);
  return { ...result.error, id: result.id };
}

describe('schemas', () => {
  it('accept string and number ids only', () => {
    expect(jsonRpcIdSchema.safeParse('a').success).toBe(true);
    expect(jsonRpcIdSchema.safeParse(-1.5).success).toBe(true);
    expect(jsonRpcIdSchema.safeParse(null).success).toBe(false);
    expect(jsonRpcIdSchema.safeParse(true).success).toBe(false);
    expect(jsonRpcIdSchema.safeParse(Number.NaN).success).toBe(false);
  });

  it('accept object or array params only', () => {
    expect(jsonRpcParamsSchema.safeParse({ a: 1 }).success).toBe(true);
    expect(jsonRpcParamsSchema.safeParse([1, 'x']).success).toBe(true);
    expect(jsonRpcParamsSchema.safeParse('x').success).toBe(false);
    expect(jsonRpcParamsSchema.safeParse(null).success).toBe(false);
  });

  it('tell requests from notifications', () => {
    const request = { jsonrpc: '2.0', id: 1, method: 'm' };
    const notification = { jsonrpc: '2.0', method: 'm' };
    expect(jsonRpcRequestSchema.safeParse(request).success).toBe(true);
    expect(jsonRpcRequestSchema.safeParse(notification).success).toBe(false);
    expect(jsonRpcNotificationSchema.safeParse(notification).success).toBe(true);
    expect(jsonRpcNotificationSchema.safeParse(request).success).toBe(false);
  });

  it('require a result or an error, and refuse both', () => {
    expect(jsonRpcSuccessResponseSchema.safeParse({ jsonrpc: '2.0', id: 1, result: null }).success).toBe(true);
    expect(jsonRpcSuccessResponseSchema.safeParse({ jsonrpc: '2.0', id: 1 }).success).toBe(false);
    expect(jsonRpcSuccessResponseSchema.safeParse({ jsonrpc: '2.0', id: null, result: 1 }).success).toBe(false);
    const error = { code: -32600, message: 'bad' };
    expect(jsonRpcErrorResponseSchema.safeParse({ jsonrpc: '2.0', id: null, error }).success).toBe(true);
    expect(jsonRpcResponseSchema.safeParse({ jsonrpc: '2.0', id: 1, result: 1, error }).success).toBe(false);
  });

  it('accept every kind in the message union', () => {
    for (const message of [
      { jsonrpc: '2.0', id: 'x', method: 'm', params: [] },
      { jsonrpc: '2.0', method: 'm' },
      { jsonrpc: '2.0', id: 1, result: { ok: true } },
      { jsonrpc: '2.0', id: 1, error: { code: 1, message: 'm' } },
    ]) {
      expect(jsonRpcMessageSchema.safeParse(message).success).toBe(true);
    }
    expect(jsonRpcMessageSchema.safeParse({ jsonrpc: '1.0', method: 'm' }).success).toBe(false);
  });
});

describe('parseMessage', () => {
  it('parses a request from JSON text', () => {
    const result = parseMessage('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}');
    expect(result).toStrictEqual({
      ok: true,
      kind: 'request',
      message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } },
    });
  });

  it('parses an already-parsed notification', () => {
    expect(parseMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toStrictEqual({
      ok: true,
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('parses success and error responses as kind "response"', () => {
    const success = parseMessage({ jsonrpc: '2.0', id: 'a', result: 5 });
    expect(success).toMatchObject({ ok: true, kind: 'response', message: { id: 'a', result: 5 } });
    const error = parseMessage({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(error).toMatchObject({ ok: true, kind: 'response', message: { id: null, error: { code: -32700 } } });
  });

  it('keeps a null result, which is still a result', () => {
    expect(parseMessage('{"jsonrpc":"2.0","id":2,"result":null}')).toMatchObject({ ok: true, kind: 'response' });
  });

  it('drops members JSON-RPC does not define', () => {
    const result = parseMessage({ jsonrpc: '2.0', id: 1, method: 'm', extra: 1 });
    expect(result).toStrictEqual({ ok: true, kind: 'request', message: { jsonrpc: '2.0', id: 1, method: 'm' } });
  });

  it('answers non-JSON text with -32700 and a null id', () => {
    const failure = failureOf(parseMessage('{"jsonrpc": "2.0", "method"'));
    expect(failure.code).toBe(-32700);
    expect(failure.message).toMatch(/^invalid JSON/);
    expect(failure.id).toBeNull();
  });

  it.each([
    ['a wrong version', { jsonrpc: '1.0', id: 1, method: 'm' }, '"jsonrpc" must be "2.0"'],
    ['a missing version', { id: 1, method: 'm' }, '"jsonrpc" must be "2.0"'],
    ['a non-string method', { jsonrpc: '2.0', id: 1, method: 5 }, '"method" must be a string'],
    ['a null request id', { jsonrpc: '2.0', id: null, method: 'm' }, '"id" must be a string or number'],
    ['a boolean id', { jsonrpc: '2.0', id: true, method: 'm' }, '"id" must be a string or number'],
    ['scalar params', { jsonrpc: '2.0', method: 'm', params: 3 }, '"params" must be an object or array'],
    ['a null success id', { jsonrpc: '2.0', id: null, result: 1 }, '"id" must be a string or number'],
    ['a missing error id', { jsonrpc: '2.0', error: { code: 1, message: 'm' } }, '"id" must be a string, number or null'],
    ['an error without message', { jsonrpc: '2.0', id: 1, error: { code: 1 } }, '"error.message" is required'],
    ['a fractional error code', { jsonrpc: '2.0', id: 1, error: { code: 1.5, message: 'm' } }, '"error.code" must be an integer'],
    ['both result and error', { jsonrpc: '2.0', id: 1, result: 1, error: { code: 1, message: 'm' } }, 'not both'],
    ['no method, result or error', { jsonrpc: '2.0', id: 1 }, 'needs "method"'],
    ['a non-object', 42, 'must be an object'],
    ['null', null, 'must be an object'],
  ])('answers %s with -32600 naming the fault', (_label, input, fault) => {
    const failure = failureOf(parseMessage(input));
    expect(failure.code).toBe(-32600);
    expect(failure.message).toContain(fault);
  });

  it('reports the id of an invalid message when it could be read', () => {
    expect(failureOf(parseMessage({ jsonrpc: '1.0', id: 7, method: 'm' })).id).toBe(7);
    expect(failureOf(parseMessage({ jsonrpc: '1.0', id: 'x', method: 'm' })).id).toBe('x');
    expect(failureOf(parseMessage({ jsonrpc: '2.0', id: {}, method: 'm' })).id).toBeNull();
  });

  it('reads a string as JSON text even when it is a JSON string literal', () => {
    expect(failureOf(parseMessage('"hello"')).code).toBe(-32600);
  });

  it('parses each element of a batch on its own', () => {
    const result = parseMessage('[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"},{"foo":"boo"},1,[]]');
    if (!result.ok || result.kind !== 'batch') throw new Error('expected a batch');
    expect(result.items.map((item) => (item.ok ? item.kind : item.error.code))).toStrictEqual(['request', 'notification', -32600, -32600, -32600]);
  });

  it('answers an empty batch with -32600', () => {
    const failure = failureOf(parseMessage('[]'));
    expect(failure.code).toBe(-32600);
    expect(failure.message).toContain('empty');
  });

  it('never throws, whatever the input', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.jsonValue(), fc.anything()), (input) => {
        const result = parseMessage(input);
        expect(typeof result.ok).toBe('boolean');
      }),
    );
  });

  it('agrees with jsonRpcMessageSchema on single JSON values', () => {
    const member = fc.oneof(fc.constant(undefined), fc.jsonValue(), fc.string(), fc.integer());
    const candidate = fc.record(
      {
        jsonrpc: fc.oneof(fc.constant('2.0'), member),
        id: fc.oneof(fc.string(), fc.integer(), fc.constant(null), member),
        method: fc.oneof(fc.string(), member),
        params: fc.oneof(fc.dictionary(fc.string(), fc.jsonValue()), fc.array(fc.jsonValue()), member),
        result: fc.jsonValue(),
        error: fc.oneof(fc.record({ code: fc.integer(), message: fc.string() }), member),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(candidate, (value) => {
        const json: unknown = JSON.parse(JSON.stringify(value));
        const result = parseMessage(json);
        expect(result.ok).toBe(jsonRpcMessageSchema.safeParse(json).success);
      }),
      { numRuns: 500 },
    );
  });

  it('round-trips what the builders make', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.integer()), fc.string(), fc.jsonValue(), (id, method, result) => {
        const text = JSON.stringify(jsonRpcRequest(id, method, { result }));
        // Compared with the JSON round trip of the request: JSON has no -0, so an arbitrary -0 comes back as 0.
        const expected: unknown = JSON.parse(text);
        expect(parseMessage(text)).toStrictEqual({ ok: true, kind: 'request', message: expected });
        const response = jsonRpcResult(id, result);
        expect(parseMessage(JSON.parse(JSON.stringify(response)))).toMatchObject({ ok: true, kind: 'response' });
      }),
    );
  });
});

describe('builders', () => {
  it('jsonRpcRequest builds a request, with params only when given', () => {
    expect(jsonRpcRequest(1, 'tools/list')).toStrictEqual({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(jsonRpcRequest('a', 'connect', { extension_id: 'e' })).toStrictEqual({
      jsonrpc: '2.0',
      id: 'a',
      method: 'connect',
      params: { extension_id: 'e' },
    });
  });

  it('jsonRpcRequest refuses an id that is not a string or finite number', () => {
    expect(() => jsonRpcRequest(Number.POSITIVE_INFINITY, 'm')).toThrow(TypeError);
  });

  it('jsonRpcNotification builds a notification without an id', () => {
    expect(jsonRpcNotification('status', { state: 'connected' })).toStrictEqual({
      jsonrpc: JSONRPC_VERSION,
      method: 'status',
      params: { state: 'connected' },
    });
    expect('id' in jsonRpcNotification('m')).toBe(false);
  });

  it('jsonRpcResult builds a success response and turns undefined into null', () => {
    expect(jsonRpcResult(3, { a: 1 })).toStrictEqual({ jsonrpc: '2.0', id: 3, result: { a: 1 } });
    expect(jsonRpcResult('x', undefined)).toStrictEqual({ jsonrpc: '2.0', id: 'x', result: null });
  });

  it('jsonRpcError builds an error response, with data only when given', () => {
    expect(jsonRpcError(null, -32700, 'Parse error')).toStrictEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
    expect(jsonRpcError(4, -32602, 'bad', { field: 'x' })).toStrictEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32602, message: 'bad', data: { field: 'x' } },
    });
  });

  it('jsonRpcError refuses a non-integer code', () => {
    expect(() => jsonRpcError(1, 1.5, 'x')).toThrow(/jsonRpcError: "error.code" must be an integer/);
  });
});

describe('bodies nested past any MCP message', () => {
  it('refuses one 100,000 levels deep as an invalid request (never a stack overflow), and takes a message at the limit', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const result = parseMessage(deep);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe(ErrorCodes.InvalidRequest);
      expect(result.error.message).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    const args = (levels: number) =>
      `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}}`;
    // The message itself is two levels (the message, params): arguments may nest up to the limit from there.
    expect(parseMessage(args(MAX_JSON_DEPTH - 2)).ok).toBe(true);
    expect(parseMessage(args(MAX_JSON_DEPTH)).ok).toBe(false);
    expect(nestsDeeperThan([[[]]], 3)).toBe(false);
    expect(nestsDeeperThan([[[[]]]], 3)).toBe(true);
  });
});
