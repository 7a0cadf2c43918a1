import type { ToolResult } from '@browsermcp/tools';
import type { PersonStop } from '@browsermcp/protocol';

/** How a session opens (see Backend.openSession). */
export interface OpenSessionOptions {
  clientName?: string | undefined;
  /** The session's client roots, for where its input files may come from (unused by a remote daemon). */
  roots?: (() => Promise<string[]>) | undefined;
  /** The session's workspace, where names the model gives for saved files land (unused by a remote daemon). */
  workspace?: (() => Promise<string | undefined>) | undefined;
  /** Who opened it (a hash of its key): with a kept state, sessions of one owner share it. */
  owner?: string | undefined;
  /** Whose files its calls save and upload (a hash of its key), when not `owner` (a handle's state is its key's). */
  caller?: string | undefined;
  /**
   * Take up (or start) the owner's kept browser state, which outlives its last session this long (ms). Default: the
   * backend's --keep-browser-state (none: the session's tabs close with it).
   */
  keepMs?: number | undefined;
  /** How the kept state is found and listed (with keepMs). */
  state?: KeptStateOptions | undefined;
}

export interface KeptStateOptions {
  /** Only take up a state that exists; a StateNotFound error otherwise (an unknown or expired handle). */
  existing?: boolean | undefined;
  /** Whose states it is among (the caller's key), and what the listing calls it (its handle). */
  principal?: string | undefined;
  name?: string | undefined;
}

/** A kept state as browser_state_list shows it. */
export interface KeptStateInfo {
  name: string;
  inUse: boolean;
  /** Unused: ms until it closes. */
  closesInMs?: number | undefined;
}

/** Where tool calls go: the embedded daemon by default, a remote daemon later. The gateway runs no browser code. */
export interface Backend {
  readonly mode: 'launch' | 'cdp' | 'extension' | 'remote';
  openSession(sessionId: string, options?: OpenSessionOptions): Promise<void>;
  /** `signal`: the MCP request was cancelled (or its client went away): the call stops, the session goes on. */
  callTool(sessionId: string, name: string, args: unknown, signal?: AbortSignal): Promise<ToolResult>;
  closeSession(sessionId: string): Promise<void>;
  /** The kept states of a principal that were given a name (browser_state_open's). */
  listStates(principal: string): Promise<KeptStateInfo[]>;
  /** Closes an owner's kept state now; false when it had none. */
  closeState(owner: string): Promise<boolean>;
  browserConnected(): boolean;
  /** Why no browser can run, with the fix (none found to launch), or undefined: for /health and the banner. */
  browserProblem?(): string | undefined;
  /**
   * What a session's running call waits for, in words, when it waits for the person or for the browser to start (for
   * progress notifications).
   */
  waitingFor?(sessionId: string): string | undefined;
  /** News of the person's browser for the log: it connected, dropped or left; the person stopped an agent. */
  onNotice?(listener: (notice: BrowserNotice) => void): void;
  close(): Promise<void>;
}

export type BrowserNotice =
  | { kind: 'browser'; browser: string; name: string | undefined; state: 'connected' | 'reconnecting' | 'gone' }
  | { kind: 'stopped'; session: string; via: PersonStop | undefined };
