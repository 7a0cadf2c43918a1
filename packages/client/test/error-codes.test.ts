import { ErrorCodes as ProtocolErrorCodes } from '@browsermcp/protocol';
import { expect, it } from 'vitest';
import { ErrorCodes } from '../src/errors.js';

// The client keeps no runtime dependency, so it spells the JSON-RPC codes it meets itself: each must be the
// protocol's, under the same name.
it('spells each of its error codes as the protocol does', () => {
  for (const [name, code] of Object.entries(ErrorCodes)) expect([name, code]).toEqual([name, ProtocolErrorCodes[name as keyof typeof ProtocolErrorCodes]]);
});
