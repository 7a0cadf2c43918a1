// The gateway's errors by kind, and the one place that tells them apart: by class and JSON-RPC code, never by the
// words of a message.
import { isDaemonError } from '@browsermcp/daemon';

/** A daemon-side failure, kept with its JSON-RPC code so it reaches the model as the daemon worded it. */
export class RemoteDaemonError extends Error {
  override readonly name = 'RemoteDaemonError';
  constructor(
    message: string,
    readonly code: number,
    /** The daemon could not be reached at all (another daemon of the cluster may be). */
    readonly unreachable = false,
  ) {
    super(message);
  }
}

/**
 * A JSON-RPC error answer with its message as written. The SDK's McpError puts "MCP error -32602: " into the message
 * itself, and the client adds it again when it reads the answer: "MCP error -32602: MCP error -32602: …".
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** The JSON-RPC code a backend's failure carries, the same for the embedded daemon and a remote one. */
export function backendErrorCode(err: unknown): number | undefined {
  if (isDaemonError(err)) return err.rpcCode;
  if (err instanceof RemoteDaemonError) return err.code;
  return undefined;
}

/** An HTTP request refused before any MCP work (a rate limit): its status and JSON-RPC code travel with it. */
export class HttpRefusal extends Error {
  override readonly name = 'HttpRefusal';
  constructor(
    readonly statusCode: number,
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/** A port the gateway must listen on is taken: which one, and the flag that chose it (the fix is to change that flag). */
export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly port: number,
    readonly flag: string,
  ) {
    super(`port ${port} is in use (another program, or another browsermcp, listens there); pick another with ${flag}`);
  }
}

/** `err` as a PortInUseError when it is Node's EADDRINUSE for `port`, else `err` unchanged. */
export function portInUse(err: unknown, port: number, flag: string): unknown {
  return (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE' ? new PortInUseError(port, flag) : err;
}
