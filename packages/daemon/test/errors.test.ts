import { ErrorCodes, ProtocolError, httpStatusForErrorCode } from '@browsermcp/protocol';
import { describe, expect, it } from 'vitest';
import {
  BrowserDisconnectedError,
  CommandTimeoutError,
  SessionInUseError,
  SessionNotFoundError,
  TabOwnedError,
  executorError,
  isDaemonError,
  madeAgainWith,
  toWireError,
} from '../src/index';

describe('daemon errors', () => {
  it('carry a string code, the HTTP status and the JSON-RPC code of their kind', () => {
    const error = new TabOwnedError('12');
    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(TabOwnedError);
    expect(error.code).toBe('BMCP_ERR_TAB_OWNED');
    expect(error.rpcCode).toBe(ErrorCodes.TabOwnedByOtherSession);
    expect(error.statusCode).toBe(409);
    expect(error.message).toBe('tab 12 is owned by another session');
  });

  it('are made again for a reader who knows a session by another id: a new error of the same kind, never an edited message', () => {
    const routerId = 'u.YWxpY2U.s1';
    const original = new SessionInUseError(routerId, 'instance-2');
    const again = madeAgainWith(original, routerId, 's1') as InstanceType<typeof SessionInUseError>;
    expect(again).not.toBe(original);
    expect(again).toBeInstanceOf(SessionInUseError);
    expect(again).toMatchObject({ code: original.code, statusCode: original.statusCode, rpcCode: original.rpcCode });
    expect(again.message).toBe(new SessionInUseError('s1', 'instance-2').message);
    expect(again.message).not.toContain(routerId);
    expect(original.message).toContain(routerId);
    // Made without `new` too, as before.
    expect(SessionNotFoundError('s2')).toBeInstanceOf(SessionNotFoundError);
    // An error that does not name it, and an error of another library, come back as they were.
    const other = new SessionNotFoundError('s9');
    expect(madeAgainWith(other, routerId, 's1')).toBe(other);
    const plain = new Error(`session ${routerId} is not open`);
    expect(madeAgainWith(plain, routerId, 's1')).toBe(plain);
    expect(plain.message).toContain(routerId);
  });

  it('take their HTTP status from the protocol package', () => {
    for (const error of [
      new SessionNotFoundError('s'),
      new CommandTimeoutError('browser_click', '60 s'),
      new BrowserDisconnectedError('disconnected', '5 minutes'),
    ]) {
      expect(error.statusCode).toBe(httpStatusForErrorCode(error.rpcCode));
    }
  });

  it('become wire errors with their JSON-RPC code', () => {
    expect(toWireError(new TabOwnedError('12'))).toEqual({
      code: ErrorCodes.TabOwnedByOtherSession,
      message: 'tab 12 is owned by another session',
    });
  });

  it("keep an executor's own code, message and data", () => {
    const error = executorError({ code: ErrorCodes.TabNotFound, message: 'tab 4 closed', data: { tabId: '4' } });
    expect(error).toMatchObject({ code: 'BMCP_ERR_EXECUTOR', rpcCode: ErrorCodes.TabNotFound, statusCode: 404 });
    expect(toWireError(error)).toEqual({ code: ErrorCodes.TabNotFound, message: 'tab 4 closed', data: { tabId: '4' } });
  });

  it('leave other errors to the protocol package: a ProtocolError keeps its code, anything else is internal', () => {
    expect(isDaemonError(new Error('boom'))).toBe(false);
    expect(toWireError(new ProtocolError(ErrorCodes.Forbidden, 'no'))).toEqual({
      code: ErrorCodes.Forbidden,
      message: 'no',
    });
    expect(toWireError(new Error('boom'))).toEqual({ code: ErrorCodes.InternalError, message: 'boom' });
  });
});
