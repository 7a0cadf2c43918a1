// The daemon ↔ extension control messages that ride in v2 event envelopes. The daemon and the extension ship apart
// (npm vs the Chrome Web Store), so this contract is versioned like any public API: add fields as optional.
import { z } from 'zod';
import { validate, type Validated } from './validate';

/** Names of the control events, in both directions. */
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
  /** extension → daemon: a session's tab closed (the session closed it, or the person did). */
  tabClosed: 'tab_closed',
  /** extension → daemon: the person stopped this agent in the popup; its session ends and its agent is told so. */
  sessionStopped: 'session_stopped',
} as const;

/**
 * What the gateway was told about how tools behave (its flags), applied by the extension to a session's tools
 * exactly as the launched browser's executor applies them.
 */
export const sessionSettingsSchema = z.object({
  /** Snapshots longer than this are cut (--snapshot-max-chars). */
  snapshotMaxChars: z.number().int().min(1).optional(),
  /** Origins pages may open; empty for any (--allowed-origins). */
  allowedOrigins: z.array(z.string().min(1)).optional(),
  /** Origins pages may never open (--blocked-origins). */
  blockedOrigins: z.array(z.string().min(1)).optional(),
  /** Optional tool groups the session may use (--caps). */
  caps: z.array(z.string().min(1)).optional(),
});
export type SessionSettings = z.infer<typeof sessionSettingsSchema>;

export const sessionOpenedPayloadSchema = z.object({
  /** The MCP client's name: the label of the session's tab group. */
  clientName: z.string().nullable(),
  settings: sessionSettingsSchema.optional(),
});
export type SessionOpenedPayload = z.infer<typeof sessionOpenedPayloadSchema>;

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
