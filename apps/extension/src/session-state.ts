import type { CommandEnvelope, SessionSettings } from '@browsermcp/protocol';
import { isOptionalCapability, toolsFor, WireFileAccess, type Tool, type ToolSession } from '@browsermcp/tools';
import type { Approval } from './approvals.js';

/** One agent's session in this browser: what the coordinator (sessions.ts) and its rooms share about it. */
export interface SessionState {
  id: string;
  /** Commands running now, and when the last one ended: popups count as the session's only around its actions. */
  running: number;
  lastActionEnd: number;
  clientName: string | null;
  /** Who the agent is as its gateway authenticated it (see identityOf), when the daemon says. */
  agent: string | undefined;
  /** While it waits for the person's Allow: what its first call wants, in words ("open example.com/…"). */
  wants: string | undefined;
  /** The person's earlier answer being read back after a browser restart (see sessionOpened). */
  recalled: Promise<void> | undefined;
  /** How its tools behave: the gateway's flags, as a launched browser applies them. */
  settings: SessionSettings;
  tabIds: number[];
  /** Of tabIds, the person's own tabs they shared with it: never closed by it, given back when it ends. */
  sharedTabIds: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
  tools: ToolSession | undefined;
  /** What it did last, for the popup: the tool, the site, when it ended. */
  lastAction: LastAction | undefined;
  /** Its last actions, oldest first, at most ACTIVITY_SIZE: the popup's activity list. */
  activity: LastAction[];
  /** Notes for its next answer that arrived before its tools were set up (after a worker restart). */
  pendingNotes: string[];
  /** What it asks the person to do right now (browser_request_user), for the popup and the badge. */
  asking: string | undefined;
  /** Uploads and saved files travel with its commands, when the daemon has a file policy (settings.outputDir). */
  files: WireFileAccess | undefined;
}

export interface LastAction {
  tool: string;
  /** A site's own tool the agent called (WebMCP), by the site's name for it. */
  pageTool?: string;
  /** The host of the page it acted on, when there was one. */
  site: string | null;
  at: number;
}

/** One agent as the popup shows it. */
export interface AgentSummary {
  sessionId: string;
  clientName: string | null;
  /** The identity its gateway authenticated ("API key 3f9a12cd"): what the person's approval binds to. */
  agent: string | null;
  /** What its waiting call wants, in words, while it waits for the person's Allow. */
  wants: string | null;
  /** Whether the person allowed it; 'pending' shows Allow once / Always allow / Deny in the popup. */
  approval: Approval | 'unasked';
  /** What it asks the person to do now (a hand-off), or null. */
  asking: string | null;
  tabs: number;
  /** Of its tabs, the person's own that they shared with it (Stop gives them back). */
  sharedTabs: number;
  lastAction: LastAction | null;
  /** Its last actions, newest first (at most ACTIVITY_SIZE). */
  activity: LastAction[];
}

/** How many of an agent's last actions the popup lists. */
const ACTIVITY_SIZE = 20;

/** A session as it starts: nothing done, no tabs; `known` what a restored one brings back. */
export function newSessionState(id: string, known: Partial<SessionState> = {}): SessionState {
  return {
    id,
    running: 0,
    lastActionEnd: 0,
    clientName: null,
    agent: undefined,
    wants: undefined,
    recalled: undefined,
    settings: {},
    tabIds: [],
    sharedTabIds: [],
    groupId: undefined,
    currentTabId: undefined,
    tools: undefined,
    lastAction: undefined,
    activity: [],
    pendingNotes: [],
    asking: undefined,
    files: undefined,
    ...known,
  };
}

/** Records what a command did, for the popup: its last action and its activity list (bounded). */
export function recordAction(s: SessionState, command: CommandEnvelope, url: string | undefined): void {
  // Any payload may come (a call refused for bad arguments still ends here): only a string name is shown.
  const payload = command.payload as { name?: unknown } | null | undefined;
  const pageTool = command.name === 'browser_webmcp_call' && typeof payload?.name === 'string' ? { pageTool: payload.name.slice(0, 128) } : {};
  s.lastAction = { tool: command.name, site: siteOf(url), at: Date.now(), ...pageTool };
  s.activity.push(s.lastAction);
  if (s.activity.length > ACTIVITY_SIZE) s.activity.splice(0, s.activity.length - ACTIVITY_SIZE);
}

/** One agent as the popup shows it; `approval` is the person's answer as the popup shows it. */
export function summaryOf(s: SessionState, approval: AgentSummary['approval']): AgentSummary {
  return {
    sessionId: s.id,
    clientName: s.clientName,
    agent: s.agent ?? null,
    wants: s.wants ?? null,
    approval,
    asking: s.asking ?? null,
    tabs: s.tabIds.length,
    sharedTabs: s.sharedTabIds.length,
    lastAction: s.lastAction ?? null,
    activity: [...s.activity].reverse(),
  };
}

/** The tools a session may call: the core ones and the optional groups the gateway enabled (--caps). */
export function toolsOf(settings: SessionSettings): Tool[] {
  // Context tools need a browser browsermcp owns: here they answer with the engine's clear error.
  return toolsFor((settings.caps ?? []).filter(isOptionalCapability));
}

/** File access for a session whose daemon has a file policy (it sends its output directory), or none. */
export function filesFor(settings: SessionSettings): WireFileAccess | undefined {
  return settings.outputDir ? new WireFileAccess(settings.outputDir) : undefined;
}

/** The host a person recognises (example.com), or null for a page without one (about:blank). */
function siteOf(url: string | undefined): string | null {
  try {
    const host = url ? new URL(url).host : '';
    return host || null;
  } catch {
    return null;
  }
}

/** The name the person knows an agent by: its MCP client's name. */
export function agentName(clientName: string | null): string {
  return clientName ?? 'MCP client';
}

/**
 * What the person's approval of an agent binds to: the identity its gateway authenticated; from a daemon that sends
 * none, the client's own name, marked as such.
 */
export function identityOf(s: Pick<SessionState, 'agent' | 'clientName'>): string {
  return s.agent ?? `client named "${agentName(s.clientName)}"`;
}
