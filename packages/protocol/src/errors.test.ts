import { describe, expect, it } from 'vitest';
import {
  ErrorCodes,
  ProtocolError,
  errorCodeName,
  errorObject,
  errorObjectSchema,
  httpStatusForErrorCode,
  isServerErrorCode,
  isStandardErrorCode,
  toErrorObject,
  type ErrorCodeName,
} from './errors';

const names = Object.keys(ErrorCodes) as ErrorCodeName[];
const standard: ErrorCodeName[] = ['ParseError', 'InvalidRequest', 'MethodNotFound', 'InvalidParams', 'InternalError'];

describe('ErrorCodes', () => {
  it('has the JSON-RPC 2.0 standard codes', () => {
    expect(ErrorCodes.ParseError).toBe(-32700);
    expect(ErrorCodes.InvalidRequest).toBe(-32600);
    expect(ErrorCodes.MethodNotFound).toBe(-32601);
    expect(ErrorCodes.InvalidParams).toBe(-32602);
    expect(ErrorCodes.InternalError).toBe(-32603);
  });

  it('gives every name a distinct code', () => {
    const codes = names.map((name) => ErrorCodes[name]);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('puts every code of ours in the server range, clear of the MCP codes -32000..-32002 and -32042', () => {
    for (const name of names.filter((n) => !standard.includes(n))) {
      const code = ErrorCodes[name];
      expect(isServerErrorCode(code), name).toBe(true);
      expect([-32000, -32001, -32002, -32042], name).not.toContain(code);
    }
  });
});

describe('isStandardErrorCode', () => {
  it('is true for the five predefined codes', () => {
    for (const name of standard) expect(isStandardErrorCode(ErrorCodes[name])).toBe(true);
  });

  it('is false for server codes, other reserved codes and application codes', () => {
    expect(isStandardErrorCode(ErrorCodes.SessionNotFound)).toBe(false);
    expect(isStandardErrorCode(-32604)).toBe(false);
    expect(isStandardErrorCode(0)).toBe(false);
    expect(isStandardErrorCode(1)).toBe(false);
  });
});

describe('isServerErrorCode', () => {
  it('is true across -32099..-32000, ours or not', () => {
    expect(isServerErrorCode(-32000)).toBe(true);
    expect(isServerErrorCode(-32099)).toBe(true);
    expect(isServerErrorCode(-32050)).toBe(true);
    expect(isServerErrorCode(ErrorCodes.TabOwnedByOtherSession)).toBe(true);
  });

  it('is false outside the range and for non-integers', () => {
    expect(isServerErrorCode(-31999)).toBe(false);
    expect(isServerErrorCode(-32100)).toBe(false);
    expect(isServerErrorCode(ErrorCodes.InvalidParams)).toBe(false);
    expect(isServerErrorCode(-32010.5)).toBe(false);
    expect(isServerErrorCode(Number.NaN)).toBe(false);
  });
});

describe('errorCodeName', () => {
  it('names every code we define', () => {
    for (const name of names) expect(errorCodeName(ErrorCodes[name])).toBe(name);
  });

  it('returns undefined for codes we do not define', () => {
    expect(errorCodeName(-32000)).toBeUndefined();
    expect(errorCodeName(42)).toBeUndefined();
  });
});

describe('httpStatusForErrorCode', () => {
  it.each([
    ['SessionNotFound', 404],
    ['TabNotFound', 404],
    ['ExtensionNotFound', 404],
    ['MethodNotFound', 404],
    ['TabOwnedByOtherSession', 409],
    ['Unauthorized', 401],
    ['Forbidden', 403],
    ['RateLimited', 429],
    ['Timeout', 504],
    ['BrowserDisconnected', 503],
    ['InvalidParams', 400],
    ['InvalidRequest', 400],
    ['ParseError', 400],
    ['ContextUnsupported', 400],
    ['InternalError', 500],
    ['CommandFailed', 500],
  ] as const)('maps %s to %i', (name, status) => {
    expect(httpStatusForErrorCode(ErrorCodes[name])).toBe(status);
  });

  it('maps unknown codes to 500', () => {
    expect(httpStatusForErrorCode(-32050)).toBe(500);
    expect(httpStatusForErrorCode(7)).toBe(500);
  });
});

describe('errorObjectSchema and errorObject', () => {
  it('accepts {code, message} with or without data', () => {
    expect(errorObjectSchema.safeParse({ code: -32603, message: 'boom' }).success).toBe(true);
    expect(errorObjectSchema.safeParse({ code: 1, message: '', data: { x: 1 } }).success).toBe(true);
  });

  it('refuses a non-integer code or a missing message', () => {
    expect(errorObjectSchema.safeParse({ code: 1.5, message: 'x' }).success).toBe(false);
    expect(errorObjectSchema.safeParse({ code: '1', message: 'x' }).success).toBe(false);
    expect(errorObjectSchema.safeParse({ code: 1 }).success).toBe(false);
  });

  it('leaves data out when it is undefined', () => {
    expect(errorObject(1, 'x')).toStrictEqual({ code: 1, message: 'x' });
    expect(errorObject(1, 'x', null)).toStrictEqual({ code: 1, message: 'x', data: null });
  });
});

describe('ProtocolError', () => {
  it('is an Error with a code, a message and optional data', () => {
    const error = new ProtocolError(ErrorCodes.TabNotFound, 'Tab 7 does not exist', { data: { tabId: '7' } });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ProtocolError');
    expect(error.code).toBe(-32012);
    expect(error.message).toBe('Tab 7 does not exist');
    expect(error.data).toStrictEqual({ tabId: '7' });
  });

  it('serialises to {code, message, data?}', () => {
    expect(new ProtocolError(-32014, 'slow').toJSON()).toStrictEqual({ code: -32014, message: 'slow' });
    expect(JSON.parse(JSON.stringify(new ProtocolError(-32014, 'slow', { data: 3 })))).toStrictEqual({
      code: -32014,
      message: 'slow',
      data: 3,
    });
  });

  it('keeps a cause without putting it on the wire', () => {
    const cause = new Error('socket closed');
    const error = new ProtocolError(ErrorCodes.BrowserDisconnected, 'browser disconnected', { cause });
    expect(error.cause).toBe(cause);
    expect(error.toJSON()).toStrictEqual({ code: -32010, message: 'browser disconnected' });
  });

  it('is rebuilt from an error object', () => {
    const error = ProtocolError.fromObject({ code: -32011, message: 'no session', data: 'abc' });
    expect(error).toBeInstanceOf(ProtocolError);
    expect(error.toJSON()).toStrictEqual({ code: -32011, message: 'no session', data: 'abc' });
  });
});

describe('toErrorObject', () => {
  it('keeps the code of a ProtocolError', () => {
    expect(toErrorObject(new ProtocolError(-32016, 'no', { data: 1 }))).toStrictEqual({
      code: -32016,
      message: 'no',
      data: 1,
    });
  });

  it('keeps the code of a plain error object and of an error named ProtocolError', () => {
    expect(toErrorObject({ code: -32013, message: 'taken' })).toStrictEqual({ code: -32013, message: 'taken' });
    const foreign = Object.assign(new Error('late'), { name: 'ProtocolError', code: -32014 });
    expect(toErrorObject(foreign)).toStrictEqual({ code: -32014, message: 'late' });
  });

  it('turns other errors and values into InternalError', () => {
    expect(toErrorObject(new TypeError('bad'))).toStrictEqual({ code: -32603, message: 'bad' });
    expect(toErrorObject('text')).toStrictEqual({ code: -32603, message: 'text' });
    // Another error's numeric code (DOMException has them) is not a wire code.
    const withCode = Object.assign(new Error('dom'), { code: 18 });
    expect(toErrorObject(withCode)).toStrictEqual({ code: -32603, message: 'dom' });
    expect(toErrorObject({ code: 1.5, message: 'm' })).toStrictEqual({ code: -32603, message: 'm' });
  });
});
