export { MCPClient, PROTOCOL_VERSIONS } from './client.js';
export { ErrorCodes, MCPError } from './errors.js';
export type { MCPErrorKind } from './errors.js';
export { readSSE, SSEParser } from './sse.js';
export type { SSEEvent } from './sse.js';
export type * from './types.js';
import { MCPError } from './errors.js';
import { PROTOCOL_VERSIONS } from './client.js';

export const MCPUtils = {
  /** The newest protocol version this client speaks, the one it offers first. */
  getProtocolVersion: (): string => PROTOCOL_VERSIONS[0]!,
  /** Every version it accepts, newest first. */
  getSupportedVersions: (): string[] => [...PROTOCOL_VERSIONS],
  isMCPError: (e: unknown): e is MCPError => e instanceof MCPError,
};
