import { randomBytes } from 'node:crypto';
import { formatDuration } from '@browsermcp/daemon';
import { ErrorCodes } from '@browsermcp/protocol';
import { BROWSER_HANDLE_PATTERN, BROWSER_STATE_TOOL_NAMES, errorResult, type BrowserStateToolName, type ToolResult } from '@browsermcp/tools';
import type { Backend } from '../backend.js';
import { backendErrorCode } from '../errors.js';
import { newSessionId } from '../sessions.js';

/** A new browser state handle: 192 random bits (SEP-2567 asks at least 128), shaped as BROWSER_HANDLE_PATTERN. */
export function newHandle(): string {
  return `bs_${randomBytes(24).toString('base64url')}`;
}

/** Who a handle's state belongs to: the key's owner and the handle, so another key naming it finds nothing. */
export function handleOwner(keyOwner: string, handle: string): string {
  return `${keyOwner}/${handle}`;
}

export function isStateTool(name: string): name is BrowserStateToolName {
  return (BROWSER_STATE_TOOL_NAMES as readonly string[]).includes(name);
}

interface CallContext {
  clientName: string | undefined;
  roots: () => Promise<string[]>;
  workspace?: () => Promise<string | undefined>;
  signal: AbortSignal;
  /** Told the session id the call runs in, while it runs (for what it waits for). */
  running?: (sessionId: string | undefined) => void;
}

/**
 * A caller's browser states (its key's): the default one, those it opened with browser_state_open, and the state tools
 * themselves. Every call opens a short session on the state and leaves it for the next request, on any gateway.
 */
export class BrowserStates {
  constructor(
    private readonly options: {
      backend: Backend;
      /** The caller's key, as owners are named (a hash; "no-key" without auth, "stdio" over stdio). */
      keyOwner: string;
      /** How long an unused state lives, in ms (--keep-browser-state, else STATELESS_STATE_KEEP_MS). */
      browserStateKeepMs: number;
      /** How many states (browser_state_open's) the key may have open at once (--max-browser-states-per-key). */
      maxBrowserStatesPerKey: number;
    },
  ) {}

  /** How long an unused state lives, in words. */
  private get idle(): string {
    return formatDuration(this.options.browserStateKeepMs);
  }

  /** Runs `name` in the state `handle` names (it must exist), or in the key's default state. */
  async run(handle: string | undefined, name: string, args: Record<string, unknown>, call: CallContext): Promise<ToolResult> {
    if (handle !== undefined && !BROWSER_HANDLE_PATTERN.test(handle)) {
      return errorResult(
        `"browser" must be a browser state handle from browser_state_open (bs_ and 32 characters), got "${handle.slice(0, 60)}". Leave it out to use your default state.`,
      );
    }
    const { backend, keyOwner, browserStateKeepMs: keepMs } = this.options;
    const id = newSessionId();
    const owner = handle === undefined ? keyOwner : handleOwner(keyOwner, handle);
    try {
      await backend.openSession(id, {
        clientName: call.clientName,
        roots: call.roots,
        workspace: call.workspace,
        owner,
        caller: keyOwner,
        keepMs,
        ...(handle !== undefined ? { state: { existing: true } } : {}),
      });
    } catch (err) {
      if (handle !== undefined && backendErrorCode(err) === ErrorCodes.StateNotFound) return errorResult(this.unknown(handle));
      throw err;
    }
    call.running?.(id);
    try {
      return await backend.callTool(id, name, args, call.signal);
    } finally {
      call.running?.(undefined);
      await backend.closeSession(id).catch(() => undefined);
    }
  }

  private unknown(handle: string): string {
    return `The browser state "${handle}" is unknown or has closed (a state unused for ${this.idle} closes, and browser_state_close closes one). Open a new one with browser_state_open, or leave out "browser" to use your default state.`;
  }

  /** browser_state_open, browser_state_list and browser_state_close. */
  async runStateTool(name: BrowserStateToolName, args: Record<string, unknown>, call: CallContext): Promise<ToolResult> {
    const { backend, keyOwner, browserStateKeepMs: keepMs } = this.options;
    if (name === 'browser_state_open') {
      // Each state holds a browser context and its tabs: a key may not pile them up (--max-browser-states-per-key).
      const open = await backend.listStates(keyOwner);
      if (open.length >= this.options.maxBrowserStatesPerKey) {
        return errorResult(
          `This key has ${open.length} browser states open, the most it may have (--max-browser-states-per-key ${this.options.maxBrowserStatesPerKey}): ${open.map((s) => s.name).join(', ')}. ` +
            'Close one with browser_state_close, or work in one of them with "browser"; an unused one closes by itself after ' +
            `${this.idle}.`,
        );
      }
      const handle = newHandle();
      const id = newSessionId();
      await backend.openSession(id, {
        clientName: call.clientName,
        roots: call.roots,
        workspace: call.workspace,
        owner: handleOwner(keyOwner, handle),
        caller: keyOwner,
        keepMs,
        state: { principal: keyOwner, name: handle },
      });
      await backend.closeSession(id);
      return text(
        `Opened browser state ${handle}. Pass "browser": "${handle}" to any tool to work in it. Unused for ${this.idle} it closes; browser_state_close closes it now.`,
      );
    }
    if (name === 'browser_state_list') {
      const states = await backend.listStates(keyOwner);
      if (states.length === 0)
        return text('No browser states are open: browser_state_open opens one. (Your default state, used without "browser", is not listed.)');
      const lines = states.map((s) => `- ${s.name}: ${s.inUse ? 'in use' : `unused, closes in ${formatDuration(s.closesInMs ?? 0)}`}`);
      return text(`Open browser states:\n${lines.join('\n')}`);
    }
    const handle = args.browser;
    if (typeof handle !== 'string' || !BROWSER_HANDLE_PATTERN.test(handle)) {
      return errorResult('browser_state_close needs "browser": a handle from browser_state_open (bs_ and 32 characters).');
    }
    if (!(await backend.closeState(handleOwner(keyOwner, handle)))) return errorResult(this.unknown(handle));
    return text(`Closed browser state ${handle}: its tabs are closed and its cookies and storage are gone.`);
  }
}

function text(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }] };
}
