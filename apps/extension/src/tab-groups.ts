import type { SessionState } from './session-state.js';

// Grey is left out: it reads as "not an agent" next to the person's own groups.
const GROUP_COLORS: `${chrome.tabGroups.Color}`[] = ['blue', 'red', 'yellow', 'green', 'pink', 'purple', 'cyan', 'orange'];

/**
 * Adds a tab to the session's tabs and to its tab group, labelled with the client's name; a session without a group
 * (or whose group the person ungrouped or closed) gets a new one, in a colour no other agent's group has.
 */
export async function addToGroup(s: SessionState, tabId: number, others: Iterable<SessionState>): Promise<void> {
  s.tabIds.push(tabId);
  try {
    if (s.groupId !== undefined) {
      await chrome.tabs.group({ groupId: s.groupId, tabIds: [tabId] });
      return;
    }
  } catch {
    // The user ungrouped or closed the group: make a new one.
  }
  s.groupId = await chrome.tabs.group({ tabIds: [tabId] });
  await chrome.tabGroups.update(s.groupId, { title: s.clientName ?? 'MCP', color: await colorFor(s, others) }).catch(() => undefined);
}

/** The session's group takes the name its client gave (again, after a reconnect). */
export function renameGroup(s: SessionState): void {
  if (s.groupId !== undefined) void chrome.tabGroups.update(s.groupId, { title: s.clientName ?? 'MCP' }).catch(() => undefined);
}

/** A colour no other agent's group has, so the person tells agents apart; the same agent name prefers the same. */
async function colorFor(s: SessionState, others: Iterable<SessionState>): Promise<`${chrome.tabGroups.Color}`> {
  const taken = new Set<string>();
  for (const other of others) {
    if (other === s || other.groupId === undefined) continue;
    const group = await chrome.tabGroups.get(other.groupId).catch(() => undefined);
    if (group) taken.add(group.color);
  }
  let hash = 0;
  for (const ch of s.clientName ?? s.id) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const start = hash % GROUP_COLORS.length;
  for (let i = 0; i < GROUP_COLORS.length; i++) {
    const color = GROUP_COLORS[(start + i) % GROUP_COLORS.length]!;
    if (!taken.has(color)) return color;
  }
  return GROUP_COLORS[start]!;
}
