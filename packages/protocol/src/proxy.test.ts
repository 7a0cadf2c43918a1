import { describe, expect, expectTypeOf, it } from 'vitest';
import { jsonRpcNotification, jsonRpcRequest, parseMessage } from './jsonrpc';
import { proxyControlId } from './ids';
import type { SessionSettings } from './extension';
import {
  PROXY_CONNECTION_STATES,
  ProxyMethods,
  connectResultSchema,
  isProxyMethod,
  isProxyRequestMethod,
  parseProxyParams,
  parseProxyResult,
  proxyMethodSchemas,
  statusParamsSchema,
  type ConnectResult,
  type ProxyMethod,
  type ProxyNotificationMethod,
  type ProxyParams,
  type ProxyRequestMethod,
  type ProxyResult,
} from './proxy';

/** `connect`'s params as written out by hand: the schema's inferred type must stay exactly this. */
type ConnectParamsShape = {
  extension_id: string;
  resumable?: boolean | undefined;
  resume_session?: string | undefined;
  keep_state?: { owner: string; ms: number; existing?: boolean | undefined; principal?: string | undefined; name?: string | undefined } | undefined;
  settings?: SessionSettings | undefined;
  account?: string | undefined;
};

describe('ProxyMethods', () => {
  it('names the wire methods', () => {
    expect(ProxyMethods).toStrictEqual({
      authenticate: 'authenticate',
      authenticated: 'authenticated',
      mcpHandshake: 'mcp_handshake',
      listExtensions: 'list_extensions',
      connect: 'connect',
      disconnect: 'disconnect',
      status: 'status',
      disconnected: 'disconnected',
      cancelled: 'notifications/cancelled',
      listStates: 'list_states',
      closeState: 'close_state',
    });
  });

  it('has a schema entry for every method, and requests have result schemas', () => {
    for (const method of Object.values(ProxyMethods)) {
      const spec = proxyMethodSchemas[method];
      expect(spec, method).toBeDefined();
      expect('result' in spec, method).toBe(spec.kind === 'request');
    }
  });

  it('splits methods into requests and notifications at the type level', () => {
    expectTypeOf<ProxyRequestMethod>().toEqualTypeOf<
      'authenticate' | 'mcp_handshake' | 'list_extensions' | 'connect' | 'disconnect' | 'list_states' | 'close_state'
    >();
    expectTypeOf<ProxyNotificationMethod>().toEqualTypeOf<'authenticated' | 'status' | 'disconnected' | 'notifications/cancelled'>();
    expectTypeOf<ProxyParams<'connect'>>().toEqualTypeOf<ConnectParamsShape>();
    expectTypeOf<ProxyResult<'connect'>>().toEqualTypeOf<ConnectResult>();
  });
});

describe('isProxyMethod and isProxyRequestMethod', () => {
  it('recognise wire names only', () => {
    expect(isProxyMethod('mcp_handshake')).toBe(true);
    expect(isProxyMethod('status')).toBe(true);
    expect(isProxyMethod('mcpHandshake')).toBe(false);
    expect(isProxyMethod('tools/call')).toBe(false);
    expect(isProxyMethod('toString')).toBe(false);
  });

  it('tell requests from notifications', () => {
    expect(isProxyRequestMethod('connect')).toBe(true);
    expect(isProxyRequestMethod('disconnected')).toBe(false);
    expect(isProxyRequestMethod('nope')).toBe(false);
  });
});

describe('parseProxyParams', () => {
  const valid: { [M in ProxyMethod]: unknown[] } = {
    authenticate: [undefined, {}],
    authenticated: [undefined, {}, { extension_id: 'ext-1' }],
    mcp_handshake: [{ accessToken: 'jwt' }, { accessToken: '' }],
    list_extensions: [undefined, {}],
    connect: [{ extension_id: 'ext-1' }, { extension_id: 'ext-1', account: 'label-of-a-key' }],
    disconnect: [undefined, {}, { connection_id: 'c1' }],
    status: [{ state: 'connected' }, { state: 'reconnecting', extension_id: 'ext-1', connection_id: 'c1', message: '4m 50s left' }],
    disconnected: [{ reason: 'extension closed' }, { reason: '', connection_id: 'c1', extension_id: 'e' }],
    'notifications/cancelled': [{ requestId: 7 }, { requestId: 'call-1', reason: 'the user pressed stop' }],
    list_states: [{ principal: 'p1' }],
    close_state: [{ owner: 'o1' }],
  };

  const invalid: { [M in ProxyMethod]: [unknown, string][] } = {
    authenticate: [[[], '"params" must be an object']],
    authenticated: [[{ extension_id: '' }, '"params.extension_id" must not be empty']],
    mcp_handshake: [
      [undefined, '"params" is required'],
      [{}, '"params.accessToken" is required'],
      [{ accessToken: 5 }, '"params.accessToken" must be a string'],
    ],
    list_extensions: [['x', '"params" must be an object']],
    connect: [
      [{}, '"params.extension_id" is required'],
      [{ extension_id: '' }, '"params.extension_id" must not be empty'],
      [{ extension_id: 'e', account: '' }, '"params.account" must not be empty'],
      [{ extension_id: 'e', account: 'x'.repeat(201) }, '"params.account"'],
    ],
    disconnect: [[{ connection_id: 7 }, '"params.connection_id" must be a string']],
    'notifications/cancelled': [[{}, '"params.requestId" must be a string or number']],
    status: [
      [{ state: 'sleeping' }, '"params.state" must be "connecting", "connected", "reconnecting" or "disconnected"'],
      [{}, '"params.state"'],
    ],
    disconnected: [[{ connection_id: 'c1' }, '"params.reason" is required']],
    list_states: [[{}, '"params.principal" is required']],
    close_state: [[{ owner: '' }, '"params.owner" must not be empty']],
  };

  for (const method of Object.values(ProxyMethods)) {
    it(`accepts valid ${method} params`, () => {
      for (const params of valid[method]) {
        expect(parseProxyParams(method, params).ok, JSON.stringify(params)).toBe(true);
      }
    });

    it(`refuses invalid ${method} params with -32602 naming the member`, () => {
      for (const [params, fault] of invalid[method]) {
        const result = parseProxyParams(method, params);
        expect(result.ok).toBe(false);
        if (!result.ok) {
          expect(result.error.code).toBe(-32602);
          expect(result.error.message).toContain(fault);
        }
      }
    });
  }

  it('returns typed, stripped params', () => {
    const result = parseProxyParams(ProxyMethods.connect, { extension_id: 'e1', extra: 1 });
    if (!result.ok) throw new Error(result.error.message);
    expectTypeOf(result.value).toEqualTypeOf<ConnectParamsShape>();
    expect(result.value).toStrictEqual({ extension_id: 'e1' });
  });

  it('answers an unknown method with -32601', () => {
    const result = parseProxyParams('tools/call' as ProxyMethod, {});
    expect(result).toStrictEqual({
      ok: false,
      error: { code: -32601, message: '"tools/call" is not a proxy method' },
    });
  });
});

describe('parseProxyResult', () => {
  it('accepts valid results for every request method', () => {
    const valid: { [M in ProxyRequestMethod]: unknown } = {
      authenticate: { name: 'Chrome on laptop', accessToken: 'jwt' },
      mcp_handshake: { authenticated: true, user_id: 'u1', mcp_client_id: 'c1' },
      list_extensions: { extensions: [{ id: 'e1', name: 'Chrome', connected: true }] },
      connect: { connection_id: 'c1', extension_id: 'e1', extension_name: 'Chrome' },
      disconnect: { disconnected: false },
      list_states: {
        states: [
          { name: 'bs_1', in_use: false, closes_in_ms: 1000 },
          { name: 'bs_2', in_use: true },
        ],
      },
      close_state: { closed: true },
    };
    for (const method of Object.keys(valid) as ProxyRequestMethod[]) {
      expect(parseProxyResult(method, valid[method]).ok, method).toBe(true);
    }
    expect(parseProxyResult('mcp_handshake', { authenticated: false, user_id: null, mcp_client_id: 'c' }).ok).toBe(true);
    expect(parseProxyResult('list_extensions', { extensions: [] }).ok).toBe(true);
  });

  it.each([
    ['authenticate', { accessToken: 'jwt' }, '"result.name" is required'],
    ['authenticate', { name: '', accessToken: 'jwt' }, '"result.name" must not be empty'],
    ['mcp_handshake', { authenticated: 'yes', user_id: 'u', mcp_client_id: 'c' }, '"result.authenticated" must be a boolean'],
    ['mcp_handshake', { authenticated: true, mcp_client_id: 'c' }, '"result.user_id"'],
    ['list_extensions', { extensions: [{ id: 'e1', name: 'x' }] }, '"result.extensions[0].connected" is required'],
    ['list_extensions', {}, '"result.extensions" is required'],
    ['connect', { connection_id: 'c1', extension_id: 'e1' }, '"result.extension_name" is required'],
    ['disconnect', null, '"result" must be an object'],
  ] as const)('refuses a bad %s result with -32603 naming the member', (method, result, fault) => {
    const parsed = parseProxyResult(method, result);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe(-32603);
      expect(parsed.error.message).toContain(fault);
    }
  });

  it('returns a typed result', () => {
    const result = parseProxyResult('disconnect', { disconnected: true });
    if (!result.ok) throw new Error(result.error.message);
    expectTypeOf(result.value).toEqualTypeOf<{ disconnected: boolean }>();
    expect(result.value.disconnected).toBe(true);
  });

  it('answers a notification or unknown method with -32601', () => {
    expect(parseProxyResult('status' as ProxyRequestMethod, {})).toMatchObject({ ok: false, error: { code: -32601 } });
  });
});

describe('status states', () => {
  it('lists the link states', () => {
    expect(PROXY_CONNECTION_STATES).toStrictEqual(['connecting', 'connected', 'reconnecting', 'disconnected']);
    expect(statusParamsSchema.safeParse({ state: 'disconnected', message: 'bye' }).success).toBe(true);
  });
});

describe('proxy messages end to end', () => {
  it('an authenticate exchange parses with the JSON-RPC parser and the proxy schemas', () => {
    const request = jsonRpcRequest(proxyControlId(1), ProxyMethods.authenticate);
    const parsed = parseMessage(JSON.stringify(request));
    if (!parsed.ok || parsed.kind !== 'request') throw new Error('expected a request');
    expect(parsed.message.id).toBe('proxy:1');
    expect(parseProxyParams(ProxyMethods.authenticate, parsed.message.params).ok).toBe(true);

    const notification = jsonRpcNotification(ProxyMethods.authenticated, { extension_id: 'e1' });
    const parsedNotification = parseMessage(JSON.stringify(notification));
    if (!parsedNotification.ok || parsedNotification.kind !== 'notification') throw new Error('expected a notification');
    expect(parseProxyParams(ProxyMethods.authenticated, parsedNotification.message.params)).toStrictEqual({
      ok: true,
      value: { extension_id: 'e1' },
    });
  });

  it('connectResultSchema is the schema behind ConnectResult', () => {
    expectTypeOf<ConnectResult>().toEqualTypeOf<{
      connection_id: string;
      extension_id: string;
      extension_name: string;
      session_id?: string | undefined;
      resumed?: boolean | undefined;
    }>();
    expect(connectResultSchema.safeParse({ connection_id: 'c', extension_id: 'e', extension_name: '' }).success).toBe(true);
  });
});
