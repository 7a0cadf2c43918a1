import type { SessionSettings } from '@browsermcp/protocol';
import type { Approval } from './approvals.js';
import { filesFor, newSessionState, type LastAction, type SessionState } from './session-state.js';

/** What survives a service-worker restart (chrome.storage.session): sessions and their tabs, not the Page objects. */
interface StoredSession {
  approval?: Approval;
  lastAction?: LastAction;
  activity?: LastAction[];
  clientName: string | null;
  agent?: string;
  settings?: SessionSettings;
  tabIds: number[];
  sharedTabIds?: number[];
  groupId: number | undefined;
  currentTabId: number | undefined;
}

const STORAGE_KEY = 'sessions';

/**
 * The sessions a stopped worker left, with the person's answer for each; tabs closed meanwhile are left out. One by
 * one, so each is registered (and counted on the badge) before the next one's tabs are checked.
 */
export async function* loadSessions(): AsyncGenerator<{ state: SessionState; approval: Approval | undefined }> {
  const stored = (await chrome.storage.session.get(STORAGE_KEY))[STORAGE_KEY] as Record<string, StoredSession> | undefined;
  for (const [id, s] of Object.entries(stored ?? {})) {
    const alive: number[] = [];
    for (const tabId of s.tabIds) if (await chrome.tabs.get(tabId).catch(() => undefined)) alive.push(tabId);
    const state = newSessionState(id, {
      clientName: s.clientName,
      agent: s.agent,
      settings: s.settings ?? {},
      tabIds: alive,
      sharedTabIds: (s.sharedTabIds ?? []).filter((t) => alive.includes(t)),
      groupId: s.groupId,
      currentTabId: s.currentTabId,
      lastAction: s.lastAction,
      activity: s.activity ?? [],
      files: filesFor(s.settings ?? {}),
    });
    yield { state, approval: s.approval };
  }
}

/** Writes every session (and the person's answer for each) for the next worker to load. */
export async function saveSessions(sessions: Iterable<SessionState>, approvalOf: (sessionId: string) => Approval | undefined): Promise<void> {
  const stored: Record<string, StoredSession> = {};
  for (const s of sessions) {
    stored[s.id] = {
      clientName: s.clientName,
      ...(s.agent !== undefined ? { agent: s.agent } : {}),
      settings: s.settings,
      tabIds: s.tabIds,
      sharedTabIds: s.sharedTabIds,
      groupId: s.groupId,
      currentTabId: s.currentTabId,
      ...(s.lastAction ? { lastAction: s.lastAction } : {}),
      activity: s.activity,
      approval: approvalOf(s.id),
    };
  }
  await chrome.storage.session.set({ [STORAGE_KEY]: stored });
}
