import { describe, expect, it } from 'vitest';
import * as protocol from './index';

describe('@browsermcp/protocol entry point', () => {
  it('re-exports every module', () => {
    const functions = [
      // jsonrpc
      'parseMessage',
      'jsonRpcRequest',
      'jsonRpcNotification',
      'jsonRpcResult',
      'jsonRpcError',
      // envelope
      'parseEnvelope',
      'createCommand',
      'createEvent',
      'responseFor',
      'errorResponseFor',
      'generateWireId',
      // proxy
      'parseProxyParams',
      'parseProxyResult',
      'isProxyMethod',
      'isProxyRequestMethod',
      // ids
      'mapId',
      'unmapId',
      'isReservedId',
      'isValidConnectionId',
      'detectIdMode',
      'proxyControlId',
      // errors
      'isServerErrorCode',
      'isStandardErrorCode',
      'errorCodeName',
      'httpStatusForErrorCode',
      'errorObject',
      'toErrorObject',
      'ProtocolError',
    ] as const;
    // biome-ignore lint/performance/noDynamicNamespaceImportAccess: the test walks the package's exports by name
    for (const name of functions) expect(typeof protocol[name], name).toBe('function');
    expect(protocol.ErrorCodes.ParseError).toBe(-32700);
    expect(protocol.ProxyMethods.mcpHandshake).toBe('mcp_handshake');
    expect(protocol.JSONRPC_VERSION).toBe('2.0');
    expect(typeof protocol.envelopeSchema.safeParse).toBe('function');
    expect(typeof protocol.jsonRpcMessageSchema.safeParse).toBe('function');
  });

  it('keeps internal helpers private', () => {
    expect('validate' in protocol).toBe(false);
    expect('describeIssue' in protocol).toBe(false);
  });
});
