// The daemon ↔ extension control messages that ride in v2 event envelopes. The daemon and the extension ship apart
// (npm vs the Chrome Web Store), so this contract is versioned like any public API: add fields as optional.
import { z } from 'zod';
import { browserKeySchema } from './browser-key';
import { toolSettingsShape } from './tool-settings';
import { validate, type Validated } from './validate';

/** Names of the control events, in both directions. */
/**
 * The daemon's port where nothing else is said: the extension looks for ws://127.0.0.1:<this>/extension by itself, and
 * a gateway on another port must tell the person the URL to enter.
 */
export const DEFAULT_DAEMON_PORT = 8765;

export const ExtensionEvents = {
  /** extension → daemon, first: which browser this is and the tabs it holds for sessions. */
  hello: 'hello',
  /** extension → daemon: traffic that keeps the MV3 worker alive. */
  keepalive: 'keepalive',
  /** daemon → extension: a session opened on this browser (or is still open after a reconnect). */
  sessionOpened: 'session_opened',
  /** daemon → extension: a session ended: close its tabs. */
  sessionClosed: 'session_closed',
  /** extension → daemon: a tab joined a session (a popup of its page). */
  tabOpened: 'tab_opened',
  /** extension → daemon: a console message of a session's tab (`consolePayloadSchema`). */
  console: 'console',
  /** extension → daemon: a dialog a session's tab opened (`dialogPayloadSchema`). */
  dialog: 'dialog',
  /** extension → daemon: a session's tab closed (the session closed it, or the person did). */
  tabClosed: 'tab_closed',
  /**
   * extension → daemon: the person stopped this agent (`sessionStoppedPayloadSchema`: Stop in the popup, or Cancel on
   * Chrome's "started debugging this browser" bar); its session ends and its agent is told so.
   */
  sessionStopped: 'session_stopped',
  /**
   * extension → daemon: the session's commands wait for the person (approving a new agent): the daemon holds their
   * timeouts for `ms`, and the agent's client hears `message` in its progress notifications.
   */
  waitingForPerson: 'waiting_for_person',
  /**
   * launched browser → daemon: the session's command waits for the browser to start (its first call, or the first
   * after a crash), which has its own bound: the daemon holds the command's timeout for `ms` (the start's bound),
   * then for the command's whole timeout once the browser runs. Same payload as `waitingForPerson`.
   */
  waitingForBrowser: 'waiting_for_browser',
  /**
   * daemon → extension: stop the command `wireId` (its caller cancelled it, or it timed out); the daemon has
   * answered for it already (`cancelPayloadSchema`).
   */
  cancel: 'cancel',
  /**
   * daemon → extension, in a cluster: sign that this daemon holds the browser now (`proveHoldPayloadSchema`, in
   * browser-key.ts), at the hello and again every HOLD_PROOF_RENEW_MS.
   */
  proveHold: 'prove_hold',
  /** extension → daemon: the signature asked for (`holdProofPayloadSchema`). */
  holdProof: 'hold_proof',
} as const;

/**
 * What the gateway was told about how tools behave (its flags), applied by the extension to a session's tools
 * exactly as the launched browser's executor applies them.
 */
export const sessionSettingsSchema = z.object({
  /** The tool flags (tool-settings.ts), with the CLIs' bounds. */
  ...toolSettingsShape,
  /** Optional tool groups the session may use (--caps). */
  caps: z.array(z.string().min(1)).optional(),
  /**
   * Secrets by name (--secrets): a name typed or filled becomes its value in the page, and a value never appears in
   * an answer. Kept in the worker's memory for the session only.
   */
  secrets: z.record(z.string().min(1), z.string()).optional(),
  /** Pages may open file: URLs (--allow-unrestricted-file-access). */
  allowUnrestrictedFileAccess: z.boolean().optional(),
  /** The server's own files and folders (key files, secrets, config, profile), which file: URLs never open. */
  protectedPaths: z.array(z.string().min(1).max(4096)).max(100).optional(),
  /**
   * Where the daemon saves what tools write (--output-dir), shown to the agent; the daemon reads uploads for the
   * session under its file roots. Absent: no file access, and the tools that need it say so.
   */
  outputDir: z.string().min(1).optional(),
});
export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

const BROWSER_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A tab the extension holds for a session, as it reports them in its hello. */
export const reportedTabSchema = z.object({ tabId: z.string().min(1), sessionId: z.string().min(1) });

/** The extension's first envelope (after `authenticated`): which browser this is and the tabs it holds. */
export const helloPayloadSchema = z.object({
  /** Stable across restarts and reconnects (kept in chrome.storage): the daemon gives its sessions back by it. */
  browserId: z
    .string()
    .refine((id) => BROWSER_ID.test(id), 'must be 1-64 letters, digits, "_" or "-" (a stable id the extension keeps)')
    .refine((id) => id !== 'local', 'must not be "local" (the daemon\'s own browser)'),
  /**
   * The browser's public key (browser-key.ts), whose hash is then its browserId: a daemon refuses a hello whose id
   * is not its key's, and a cluster of daemons refuses one without a key.
   */
  key: browserKeySchema.optional(),
  /** e.g. "Chrome 131". */
  browser: z.string(),
  /** The extension's version. */
  version: z.string(),
  /** The tabs it holds for daemon sessions: on a reconnect, the truth about them. */
  tabs: z.array(reportedTabSchema).default([]),
});
export type HelloPayload = z.infer<typeof helloPayloadSchema>;

export function parseHelloPayload(payload: unknown): Validated<HelloPayload> {
  return validate(helloPayloadSchema, payload, 'payload');
}

/** extension → daemon `console` event: a console message of a session's tab. */
export const consolePayloadSchema = z.object({ level: z.string(), text: z.string() });
/** extension → daemon `dialog` event: a dialog a session's tab opened. */
export const dialogPayloadSchema = z.object({ type: z.string(), message: z.string() });

export const sessionOpenedPayloadSchema = z.object({
  /** The MCP client's name: the label of the session's tab group. */
  clientName: z.string().nullable(),
  /**
   * Who the agent is as its gateway or daemon authenticated it ("API key 3f9a12cd", "user alice"): an identity it
   * cannot choose, unlike its client name. The person's approval binds to it.
   */
  agent: z.string().max(200).optional(),
  settings: sessionSettingsSchema.optional(),
  /**
   * Said again after the browser reconnected: the session was open before. A browser that does not know it (it
   * restarted, or the extension was reloaded) lost its tabs, and tells the agent so.
   */
  resumed: z.boolean().optional(),
});
export type SessionOpenedPayload = z.infer<typeof sessionOpenedPayloadSchema>;

export const waitingForPersonPayloadSchema = z.object({
  /** What the person is asked, in words for the agent's client: 'Waiting for the person to approve …'. */
  message: z.string().min(1),
  /** How long the browser waits for the answer, in ms. */
  ms: z.number().int().min(1),
});
export type WaitingForPersonPayload = z.infer<typeof waitingForPersonPayloadSchema>;

export function parseWaitingForPerson(payload: unknown): Validated<WaitingForPersonPayload> {
  return validate(waitingForPersonPayloadSchema, payload, 'payload');
}

export const cancelPayloadSchema = z.object({ wireId: z.string().min(1), reason: z.enum(['cancelled', 'timeout']) });
export type CancelPayload = z.infer<typeof cancelPayloadSchema>;

/** How the person stopped an agent: the popup's Stop, or Cancel on Chrome's debugging bar. */
export const PERSON_STOPS = ['popup', 'debugger_bar'] as const;
export type PersonStop = (typeof PERSON_STOPS)[number];
/** `null` (what extensions before the bar's Cancel send) is the popup's Stop. */
export const sessionStoppedPayloadSchema = z.object({ via: z.enum(PERSON_STOPS) }).nullable();
export type SessionStoppedPayload = z.infer<typeof sessionStoppedPayloadSchema>;

export function parseSessionStopped(payload: unknown): Validated<SessionStoppedPayload> {
  return validate(sessionStoppedPayloadSchema, payload, 'payload');
}

export function parseCancel(payload: unknown): Validated<CancelPayload> {
  return validate(cancelPayloadSchema, payload, 'payload');
}

export function parseSessionOpened(payload: unknown): Validated<SessionOpenedPayload> {
  return validate(sessionOpenedPayloadSchema, payload, 'payload');
}

/** WebSocket close codes on /extension (4000-4999 are the application's), used by both sides. */
export const ExtensionCloseCodes = {
  /** extension → daemon: the person paused the connection (Disconnect in the popup); agents are told so. */
  Paused: 4100,
  /** daemon → extension: a malformed hello, or none in time. */
  BadHello: 4400,
  /** daemon → extension: no valid `authenticate` answer, or none in time. The token must change: do not retry. */
  Unauthorized: 4401,
  /** daemon → extension: the browserId belongs to another user. Do not retry. */
  Forbidden: 4403,
  /** daemon → extension: the same browser connected again; this older socket is replaced. */
  Replaced: 4409,
  /** daemon → extension: the daemon is shutting down. */
  Shutdown: 1001,
} as const;
