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
