import { SessionNotFoundError } from '@browsermcp/daemon';
import { ErrorCodes } from '@browsermcp/protocol';
import { describe, expect, it } from 'vitest';
import { backendErrorCode, RemoteDaemonError } from '../src/errors.js';

describe('backendErrorCode: one code for one fault, embedded or remote', () => {
  it("reads the embedded daemon's error and a remote daemon's alike", () => {
    expect(backendErrorCode(new SessionNotFoundError('s1'))).toBe(ErrorCodes.SessionNotFound);
    expect(backendErrorCode(new RemoteDaemonError('gone', ErrorCodes.SessionNotFound))).toBe(ErrorCodes.SessionNotFound);
    expect(backendErrorCode(new RemoteDaemonError('no such tool', ErrorCodes.MethodNotFound))).toBe(ErrorCodes.MethodNotFound);
  });

  it('has none for anything else, whatever its message says', () => {
    expect(backendErrorCode(new Error('Method not found'))).toBeUndefined();
    expect(backendErrorCode('Method not found')).toBeUndefined();
  });
});
