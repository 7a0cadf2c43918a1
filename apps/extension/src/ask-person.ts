/**
 * A new agent's request, shown where the person sees it even with the extension not pinned (its state after
 * install: no badge in sight): a system notification with the agent's name, identity and wish, and Allow once / Deny.
 * The popup keeps the full choice (Always allow too).
 */
const PREFIX = 'approve:';
export const NOTIFICATION_BUTTONS = ['once', 'deny'] as const;

export function showApprovalRequest(sessionId: string, name: string, identity: string, wants: string): void {
  void chrome.notifications
    .create(`${PREFIX}${sessionId}`, {
      type: 'basic',
      iconUrl: chrome.runtime.getURL('icon128.png'),
      title: `"${name}" asks to use your browser`,
      message: `${identity}. It wants to ${wants}.`,
      contextMessage: 'browsermcp: Always allow is in the toolbar popup',
      buttons: [{ title: 'Allow once' }, { title: 'Deny' }],
      requireInteraction: true,
      priority: 2,
    })
    .catch(() => undefined);
}

export function clearApprovalRequest(sessionId: string): void {
  void chrome.notifications.clear(`${PREFIX}${sessionId}`).catch(() => undefined);
}

/** The session a notification asks about, or undefined for notifications not ours. */
export function sessionOfNotification(notificationId: string): string | undefined {
  return notificationId.startsWith(PREFIX) ? notificationId.slice(PREFIX.length) : undefined;
}

const HANDOFF_PREFIX = 'handoff:';

/**
 * An agent hands the person a step (browser_request_user): a notification like an approval's, so the person notices
 * even with the extension unpinned; clicking it shows the agent's tab, where the banner waits for Done or Decline.
 */
export function showHandoff(sessionId: string, name: string, message: string): void {
  void chrome.notifications
    .create(`${HANDOFF_PREFIX}${sessionId}`, {
      type: 'basic',
      iconUrl: chrome.runtime.getURL('icon128.png'),
      title: `"${name}" needs you`,
      message,
      contextMessage: 'browsermcp: click to see its tab, then Done or Decline there',
      requireInteraction: true,
      priority: 2,
    })
    .catch(() => undefined);
}

export function clearHandoff(sessionId: string): void {
  void chrome.notifications.clear(`${HANDOFF_PREFIX}${sessionId}`).catch(() => undefined);
}

/** The session a hand-off notification is about, or undefined for other notifications. */
export function sessionOfHandoff(notificationId: string): string | undefined {
  return notificationId.startsWith(HANDOFF_PREFIX) ? notificationId.slice(HANDOFF_PREFIX.length) : undefined;
}
